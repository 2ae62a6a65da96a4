import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import mercurius from 'mercurius';
import {
  GraphQLError, isEnumType, Kind, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate,
  type DocumentNode, type GraphQLFormattedError, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule,
} from 'graphql';
import type { GraphqlConfig } from '../../kernel/config.ts';
import { withQueryStats, type QueryStats } from '../../db/query-stats.ts';
import { detailOf, type FieldError } from '../../kernel/domain-error.ts';
import type { PlatformWarning } from '../../kernel/platform-port/platform-warnings.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { graphqlNestingDepth } from '../../kernel/json-depth.ts';
import { MAX_JSON_DEPTH } from '../../kernel/limits.ts';
import { formatGraphqlErrors, GraphQLRequestError } from './graphql-errors.ts';
import { federationSdlRule, GraphQLLimitError, LIMIT_CODES, operationCost, operationShapeRule, tooComplex, withComplexityLimit } from '../../kernel/graphql-limits.ts';
import { requestedOperations, type OperationPrice } from '../admission/request-price.ts';
import { prefersHtml } from '../pages/index-page.ts';
import { GRAPHIQL_PATH, registerGraphiql } from '../pages/graphiql.ts';
import { sendProblem } from '../errors/problem.ts';
import { recordUnavailable, retryGraphqlRead } from './retry-read.ts';
import { RETRY_AFTER_SECONDS } from '../errors/unavailable.ts';
import type { LiveSubscriptions } from './live-events.ts';
import type { GuardedSocket, SubscribePayload } from './live-socket.ts';

export const GRAPHQL_PATH = '/graphql';

export interface GraphqlDeps {
  schema: GraphQLSchema;
  /**
   * Checks every argument of the operation about to run against the input limits (src/kernel/limits.ts),
   * throwing INVALID_INPUT: the schema's `checkOperationInput` (schema/input-limits.ts), handed in by
   * the composition root so src/http imports no schema code.
   */
  checkInput: (schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined) => void;
  config: GraphqlConfig;
  /** Authenticates the key (401 / 403 / 429 replied by it); true when the request may go on. */
  authorize: (request: FastifyRequest, reply: FastifyReply, scope: 'read') => Promise<boolean>;
  makeContext: (request: FastifyRequest) => ShopContext;
  /** What an answer must say about the shop's platform data (a store that does not answer): `extensions.warnings`. No SQL. */
  warningsFor?: (shopId: string) => PlatformWarning[];
  /** Charges the request its rate-limit tokens (one per root field) and admits its work; replies 429 / 503 itself and returns false when refused. */
  charge: (request: FastifyRequest, reply: FastifyReply, price: OperationPrice) => Promise<boolean>;
  /** Adds `X-Query-Count` (SQL statements the request's operations sent), as the REST facade does. */
  exposeQueryCount: boolean;
  /** Subscriptions over graphql-ws on the same path (src/http/graphql/live-events.ts); none when absent. */
  subscriptions?: LiveSubscriptions;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with one operation of a POST body, fields prefixed with `prefix` (`[2].` in a batch). */
function operationProblems(body: unknown, prefix: string): FieldError[] {
  if (!isObject(body)) return [{ field: prefix ? prefix.slice(0, -1) : 'body', message: 'must be a JSON object with a `query` string' }];
  const problems: FieldError[] = [];
  if (body.query === undefined || body.query === null || body.query === '') problems.push({ field: `${prefix}query`, message: 'is required' });
  else if (typeof body.query !== 'string') problems.push({ field: `${prefix}query`, message: 'must be a string (the GraphQL document)' });
  if (body.variables !== undefined && body.variables !== null && !isObject(body.variables)) problems.push({ field: `${prefix}variables`, message: 'must be an object' });
  if (body.operationName !== undefined && body.operationName !== null && typeof body.operationName !== 'string') {
    problems.push({ field: `${prefix}operationName`, message: 'must be a string' });
  }
  if (body.extensions !== undefined && body.extensions !== null && !isObject(body.extensions)) problems.push({ field: `${prefix}extensions`, message: 'must be an object' });
  return problems;
}

/**
 * Refuses a POST body that is not a GraphQL request before mercurius sees it: mercurius would
 * take a non-string `query` for a ready-made AST, and an empty one for a persisted-query miss.
 */
export function checkRequestBody(body: unknown, maxBatch: number): void {
  if (!Array.isArray(body)) {
    const problems = operationProblems(body, '');
    if (problems.length > 0) throw new GraphQLRequestError(detailOf(problems), problems);
    return;
  }
  if (maxBatch === 0) {
    throw new GraphQLRequestError('batched requests are turned off on this server; send one operation per request', [{ field: 'body', message: 'must be a JSON object' }]);
  }
  if (body.length === 0 || body.length > maxBatch) {
    throw new GraphQLRequestError(`a batch holds 1 to ${maxBatch} operations; this one has ${body.length}`,
      [{ field: 'body', message: `must hold 1 to ${maxBatch} operations` }]);
  }
  const problems = body.flatMap((operation, index) => operationProblems(operation, `[${index}].`));
  if (problems.length > 0) throw new GraphQLRequestError(detailOf(problems), problems);
}

/**
 * Mercurius reads a `query` that fails to parse as a JSON-encoded AST. This API takes GraphQL text
 * only (a hand-made AST would skip the token limit, and a malformed one crashes validation), so a
 * document the parser did not produce from this very source is answered with the parse error.
 */
function parsedFromSource(document: DocumentNode | null | undefined, source: unknown): boolean {
  // What JSON.parse made may be anything (null, a number, an object without `loc`): probe gently.
  const body = (document as { loc?: { source?: { body?: unknown } } } | null | undefined)?.loc?.source?.body;
  return typeof source === 'string' && body === source;
}

/**
 * Wraps mercurius's handler: a batch answers 200 (each operation carries its own errors), and with
 * `exposeQueryCount` the handler runs inside a SQL statement counter reported in `X-Query-Count`.
 */
function wrapHandler(handler: RouteHandlerMethod, exposeQueryCount: boolean): RouteHandlerMethod {
  return async function graphqlHandler(this: FastifyInstance, request, reply) {
    const stats: QueryStats = { count: 0, queries: [] };
    // A query whose database connection broke runs once more (src/http/graphql/retry-read.ts).
    const run = () => retryGraphqlRead(request, reply, () => handler.call(this, request, reply) as Promise<unknown>);
    try {
      const result = await (exposeQueryCount ? withQueryStats(run, stats) : run());
      if (Array.isArray(request.body)) reply.code(200);
      return result;
    } finally {
      if (exposeQueryCount) reply.header('X-Query-Count', String(stats.count));
    }
  } as RouteHandlerMethod;
}

/** The `operationName` the client sent for the operation of this context (one of a batch, or the request's). */
function operationNameOf(context: unknown): string | undefined {
  const { reply, operationId } = context as { reply?: FastifyReply; operationId?: number };
  const request = reply?.request;
  if (!request) return undefined;
  const sent = request.method === 'GET' ? request.query : Array.isArray(request.body) ? request.body[operationId ?? 0] : request.body;
  const name = (sent as { operationName?: unknown } | null | undefined)?.operationName;
  return typeof name === 'string' ? name : undefined;
}

/** Resolves once the response is written (or its connection closed). */
function untilWritten(reply: FastifyReply): Promise<never> {
  return new Promise((resolve) => {
    if (reply.raw.writableEnded || reply.raw.destroyed) return resolve(undefined as never);
    reply.raw.once('finish', () => resolve(undefined as never));
    reply.raw.once('close', () => resolve(undefined as never));
  });
}

/** Fastify's own refusals of the HTTP request (not JSON, too large, wrong media type): problem+json, like REST. */
function isHttpLevelError(error: { code?: string; statusCode?: number }): boolean {
  if (typeof error.code === 'string') return error.code.startsWith('FST_ERR_CTP_');
  // The JSON parser's own refusals (a poisoned prototype key) arrive as a 400 SyntaxError without a code.
  return error instanceof SyntaxError && error.statusCode === 400;
}

/** A WebSocket upgrade (@fastify/websocket marks it). */
const isWebSocket = (request: FastifyRequest): boolean => request.ws;

/** The address bar of a browser: a GET without a key that prefers HTML. */
function isBrowserVisit(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers.authorization === undefined && prefersHtml(request.headers.accept);
}

/** A browser opening /graphql goes to GraphiQL when it is served; else it is told how queries are sent. */
function answerBrowser(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (app.hasRoute({ method: 'GET', url: GRAPHIQL_PATH })) return reply.redirect(GRAPHIQL_PATH, 302);
  return sendProblem(request, reply, {
    code: 'INVALID_INPUT',
    detail: `${GRAPHQL_PATH} is the GraphQL endpoint, not a page: POST a JSON body {"query": "{ locations { locationId name } }"} `
      + 'with Content-Type: application/json and Authorization: Bearer <API key>. GraphiQL, the in-browser IDE, is off on this server '
      + '(BOMCORE_GRAPHIQL=1 turns it on).',
  });
}

/** `/graphql`: authenticated, counted, limited, with errors every client can act on (docs/graphql.md). */
export async function registerGraphql(app: FastifyInstance, deps: GraphqlDeps): Promise<void> {
  const { config } = deps;
  await app.register(async (scope) => {
    // Who is asking comes first: a request without a valid key is 401 whatever its body holds, and
    // only an authenticated request reaches body parsing (whose errors build a GraphQL context).
    // A WebSocket upgrade carries its key in graphql-ws' connection_init, checked there (live-events.ts).
    // The websocket plugin goes first, so its hook has marked an upgrade (`request.ws`) before ours
    // run; mercurius then reuses it. Only a real upgrade is marked: a header alone does not skip auth.
    // Each subscription socket is guarded (live-socket.ts) before mercurius takes it: this hook goes before the
    // websocket plugin's, which reads the route's wsHandler when the route is added.
    const subscriptions = deps.subscriptions;
    if (subscriptions) {
      scope.addHook('onRoute', (route) => {
        const wsHandler = (route as { wsHandler?: (socket: GuardedSocket, request: FastifyRequest) => unknown }).wsHandler;
        if (route.url !== GRAPHQL_PATH || typeof wsHandler !== 'function') return;
        (route as { wsHandler?: unknown }).wsHandler = function guardedWsHandler(this: unknown, socket: GuardedSocket, request: FastifyRequest) {
          subscriptions.guard(socket, checkSubscription);
          return wsHandler.call(this, socket, request);
        };
      });
      await scope.register(fastifyWebsocket, { options: { maxPayload: 1_048_576 } });
    }
    scope.addHook('onRequest', async (request, reply) => {
      if (isWebSocket(request)) return undefined;
      if (isBrowserVisit(request)) return answerBrowser(app, request, reply);
      if (!(await deps.authorize(request, reply, 'read'))) return reply;
      return undefined;
    });
    scope.addHook('onRoute', (route) => {
      if (route.url === GRAPHQL_PATH) route.handler = wrapHandler(route.handler, deps.exposeQueryCount);
    });
    scope.addHook('preHandler', async (request) => {
      if (request.method === 'POST') checkRequestBody(request.body, config.maxBatch);
    });
    // Cost, before anything runs (src/kernel/graphql-limits.ts): an operation over the complexity
    // limit is refused here, stating its cost and the limit, without being validated or compiled
    // (in a batch, it fails alone when it starts); the rest is charged its tokens and admitted by its work
    // (src/http/admission/request-price.ts).
    scope.addHook('preHandler', async (request, reply) => {
      if (request.url.split('?')[0] !== GRAPHQL_PATH || isWebSocket(request)) return undefined;
      const body = request.method === 'POST' ? request.body : request.query;
      const operations = requestedOperations(deps.schema, body, config);
      if (!Array.isArray(body) && operations[0]!.complexity > config.maxComplexity) {
        const error = tooComplex(operations[0]!.complexity, config.maxComplexity);
        request.log.info({ errors: [{ code: error.code, message: error.message }] }, 'graphql request refused');
        if (deps.exposeQueryCount) reply.header('X-Query-Count', '0');
        return reply.code(400).send({ data: null, errors: [{ message: error.message, extensions: { code: error.code, limit: error.limit, measured: error.measured } }] });
      }
      const runs = operations.filter((o) => o.complexity <= config.maxComplexity);
      const price = { tokens: runs.reduce((sum, o) => sum + o.tokens, 0), work: runs.reduce((sum, o) => sum + o.work, 0) };
      if (!(await deps.charge(request, reply, price))) return reply;
      return undefined;
    });

    const validationRules: ValidationRule[] = [operationShapeRule(config)];
    if (!config.introspection) validationRules.push(NoSchemaIntrospectionCustomRule);
    if (!config.federation) validationRules.push(federationSdlRule);
    const format = (execution: Parameters<typeof formatGraphqlErrors>[0], context: unknown) => {
      const reply = (context as { reply?: FastifyReply }).reply;
      return formatGraphqlErrors(execution, {
        maxTokens: config.maxTokens,
        enumValues: (name) => {
          const type = deps.schema.getType(name);
          return isEnumType(type) ? type.getValues().map((value) => value.name) : null;
        },
        log: reply?.log ?? app.log,
        // 503 UNAVAILABLE: the same Retry-After as REST, and the cause for the read retry.
        onUnavailable: (cause) => {
          reply?.header('Retry-After', RETRY_AFTER_SECONDS);
          recordUnavailable(reply, cause);
        },
      });
    };

    // Before the parser recurses over it: fields as deep as allowed, an argument's parentheses, values as deep as MAX_JSON_DEPTH.
    const maxNesting = config.maxDepth + 1 + MAX_JSON_DEPTH;
    const tooDeep = (nesting: number) => new GraphQLError(`the document nests braces, brackets and parentheses ${nesting} levels deep; the limit is ${maxNesting}`, {
      extensions: { code: LIMIT_CODES.depth, limit: maxNesting, measured: nesting },
    });
    /**
     * A subscription document is held to the rules of a query before it runs (docs/graphql.md, "Limits"): nesting and
     * tokens before parsing, the standard validation with the depth, alias and introspection rules, the cost, the input limits.
     */
    function checkSubscription(payload: SubscribePayload): GraphQLFormattedError[] | null {
      const refuse = (error: unknown): GraphQLFormattedError[] => {
        const errors = (Array.isArray(error) ? error : [error]).map((e: unknown) => {
          if (e instanceof GraphQLError) return e;
          if (e instanceof GraphQLLimitError) return new GraphQLError(e.message, { extensions: { code: e.code, limit: e.limit, measured: e.measured } });
          return new GraphQLError(e instanceof Error ? e.message : String(e), { originalError: e instanceof Error ? e : undefined });
        });
        // Serialised by JSON.stringify (each error's toJSON): the formatted errors of an HTTP answer.
        return (format({ errors }, {}).response.errors ?? []) as unknown as GraphQLFormattedError[];
      };
      try {
        const nesting = graphqlNestingDepth(payload.query);
        if (nesting > maxNesting) return refuse(tooDeep(nesting));
        const document = parse(payload.query, { maxTokens: config.maxTokens });
        const invalid = validate(deps.schema, document, [...specifiedRules, ...validationRules]);
        if (invalid.length > 0) return refuse(invalid);
        const operation = selectedOperation(document, payload.operationName ?? undefined);
        if (operation?.operation !== 'subscription') {
          return refuse(new GraphQLError('only a subscription runs over the WebSocket; send queries and mutations as HTTP POST /graphql', {
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          }));
        }
        const variables = payload.variables ?? undefined;
        const cost = operationCost(deps.schema, document, variables, payload.operationName);
        if (cost > config.maxComplexity) return refuse(tooComplex(cost, config.maxComplexity));
        deps.checkInput(deps.schema, document, variables, payload.operationName ?? undefined);
        return null;
      } catch (error) {
        return refuse(error);
      }
    }

    await scope.register(mercurius, {
      schema: deps.schema,
      path: GRAPHQL_PATH,
      graphiql: false,
      jit: 1,
      allowBatchedQueries: config.maxBatch > 0,
      graphql: { parseOptions: { maxTokens: config.maxTokens } },
      validationRules,
      ...(deps.subscriptions ? { subscription: deps.subscriptions.options as never } : {}),
      // The error path builds a context too; every request here is authenticated (onRequest), the
      // guard only keeps a future route from turning an error into "unauthenticated request".
      context: (request) => (request.auth ? withComplexityLimit(deps.makeContext(request), config.maxComplexity) : {}) as unknown as Record<string, unknown>,
      errorFormatter: (execution, context) => format(execution, context),
      // Errors outside execution (a refused document, a malformed body, an unknown query): thrown
      // to the parent handler when Fastify refused the HTTP request itself, else formatted here.
      errorHandler: (error, _request, reply) => {
        if (isHttpLevelError(error as { code?: string; statusCode?: number })) throw error;
        const graphqlError = error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
        const { statusCode, response } = format({ errors: [graphqlError] }, { reply });
        reply.code(statusCode).send(response);
        // Mercurius wraps this handler in an async function; until the async onSend hooks have
        // written the response, Fastify would take its `undefined` for "nothing sent" and send again.
        return untilWritten(reply);
      },
    });

    deps.subscriptions?.attach(scope.graphql.pubsub);

    scope.graphql.addHook('preParsing', async (_schema, source) => {
      const nesting = graphqlNestingDepth(source);
      if (nesting > maxNesting) throw tooDeep(nesting);
    });
    scope.graphql.addHook('preValidation', async (_schema, document, context) => {
      const source = (context as { __currentQuery?: unknown }).__currentQuery;
      if (parsedFromSource(document, source)) return;
      parse(String(source), { maxTokens: config.maxTokens });
      throw new GraphQLError('Syntax Error: the query is not a GraphQL document.');
    });
    // Input limits (src/kernel/limits.ts): every argument, from literals and variables, before anything runs.
    // A shop whose store does not answer: every answer says it serves the last synced platform data (REST: meta.warnings).
    const warningsFor = deps.warningsFor;
    if (warningsFor) {
      scope.graphql.addHook('onResolution', async (execution, context) => {
        const shopId = (context as { shopId?: string }).shopId;
        const warnings = shopId ? warningsFor(shopId) : [];
        if (warnings.length > 0) execution.extensions = { ...execution.extensions, warnings };
      });
    }
    scope.graphql.addHook('preExecution', async (schema, document, context, variables) => {
      // This hook runs for HTTP only (a graphql-ws operation has its own): a subscription sent over
      // HTTP would run once as a query with no event and fail field by field; it is refused instead.
      const operation = selectedOperation(document, operationNameOf(context))?.operation;
      if (operation === 'subscription') {
        throw new GraphQLError('a subscription runs over a graphql-ws connection (WebSocket) to /graphql, not over HTTP: see docs/events.md, "Subscriptions"', {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        });
      }
      // A mutation's Idempotency-Key would be a promise this endpoint does not keep (docs/graphql.md, "Retries"): refused, not ignored.
      if (operation === 'mutation' && (context as { reply?: FastifyReply }).reply?.request.headers['idempotency-key'] !== undefined) {
        throw new GraphQLError('Idempotency-Key is honoured by the REST API\'s PATCH routes only; a GraphQL mutation with it is refused rather than run without '
          + 'the protection it asks for: send the write to its REST route with the key, or without the key and retry as docs/graphql.md, "Retries", says', {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        });
      }
      deps.checkInput(schema, document, variables as Record<string, unknown> | undefined, operationNameOf(context));
    });
  });

  if (config.graphiql) await registerGraphiql(app);
}

/** The operation of `document` that runs: the named one, or the only one. */
function selectedOperation(document: DocumentNode, name: string | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
}
