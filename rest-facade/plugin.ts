import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { DomainError, type ErrorCode } from '../src/kernel/domain-error.ts';
import { yieldToLoop } from '../src/kernel/cooperative.ts';
import { operationPrice, type OperationPrice } from '../src/http/admission/request-price.ts';
import { sendProblem } from '../src/http/errors/problem.ts';
import { lostConnectionIn, retryReadOnce } from '../src/http/graphql/retry-read.ts';
import type { Scope } from '../src/kernel/scopes.ts';
import type { ShopContext } from '../src/kernel/shop-context.ts';
import type { PlatformWarning } from '../src/kernel/platform-port/platform-warnings.ts';
import { allowHeader, CONTRACT_PATHS, FOREIGN_METHODS } from './contract.ts';
import type { FacadeRoute, GraphQLData, RouteInput } from './define-route.ts';
import { compileDataConverter } from './derive-data.ts';
import { routeDataSchema } from './derive-schema.ts';
import { envelope } from './envelope.ts';
import { registerOpenApiRoute } from './openapi.ts';
import { loadOperation, type StoredOperation } from './operations.ts';
import { facadeRouteSchema } from './route-schema.ts';
import { routes } from './routes/index.ts';

export interface FacadeOptions {
  schema: GraphQLSchema;
  authorize: (request: FastifyRequest, reply: FastifyReply, scope: Scope) => Promise<boolean>;
  /** The shop context an operation runs with (a PATCH holding an Idempotency-Key gets one bound to its write transaction). */
  makeContext: (request: FastifyRequest) => ShopContext | Promise<ShopContext>;
  /** Charges the request its rate-limit tokens (one: a REST call) and admits its work (the stored operation's, with its variables); replies 429 / 503 and returns false when refused. */
  charge: (request: FastifyRequest, reply: FastifyReply, price: OperationPrice) => Promise<boolean>;
  /**
   * Runs one operation and counts its SQL round trips. Passed in by the app: the facade reaches
   * the service only through GraphQL and knows nothing of the database.
   */
  runCounted: <T>(run: () => Promise<T>) => Promise<{ value: T; queryCount: number }>;
  /** Adds `X-Query-Count` (SQL round trips of the operation) to responses; for tests and benchmarks. */
  exposeQueryCount: boolean;
  /** What the answer must say about the shop's platform data (a store that does not answer): `meta.warnings`. No SQL. */
  warningsFor?: (request: FastifyRequest) => PlatformWarning[];
}

/** Turns the first GraphQL error of a result into the domain error it carries. */
function toDomainError(error: GraphQLError): Error {
  if (error.originalError instanceof DomainError) return error.originalError;
  const code = error.extensions?.code as ErrorCode | undefined;
  if (code && code !== 'INTERNAL') return new DomainError(code, error.message);
  // No path and no cause: the operation was refused before execution, i.e. a variable the route
  // schema let through did not coerce to its GraphQL type. That is the client's input.
  if (!error.originalError && !error.path) return new DomainError('INVALID_INPUT', error.message);
  return error.originalError ?? new Error(error.message);
}

/** The work of a request of a stored operation (page size, ids); 0 when its variables do not coerce (it is refused when it runs). */
function storedWork(schema: GraphQLSchema, operation: StoredOperation, variables: Record<string, unknown>): number {
  try {
    return operationPrice(schema, operation.document, variables).work;
  } catch {
    return 0;
  }
}

/**
 * How a route finds the value its `data` is converted from, decided once at start-up: `toData`,
 * the named `dataField` (null: the whole result), else the operation's only root field.
 */
function dataSource(route: FacadeRoute, operation: StoredOperation): (result: GraphQLData, input: RouteInput) => unknown {
  if (route.toData) return route.toData;
  if (route.dataField === null) return (result) => result;
  const field = route.dataField ?? (operation.rootFields.length === 1 ? operation.rootFields[0] : undefined);
  if (field === undefined || !operation.rootFields.includes(field)) {
    throw new Error(`route ${route.method} ${route.url}: name a dataField among the root fields of ${operation.name} (${operation.rootFields.join(', ')})`);
  }
  return (result) => result[field];
}

/** What a route needs from the schema: its compiled operation, its `data` schema and converter. */
interface PreparedRoute {
  operation: StoredOperation;
  source: (result: GraphQLData, input: RouteInput) => unknown;
  data: ReturnType<typeof routeDataSchema>;
  toRest: ReturnType<typeof compileDataConverter>;
}

/**
 * Prepared once per schema and route, whatever the number of apps built on them: they depend on
 * nothing else, hold no state between requests, and compiling them (graphql-jit, the converters) is
 * most of the facade's start-up. A process builds one app; the test suite builds one per file.
 */
const preparedRoutes = new WeakMap<GraphQLSchema, Map<FacadeRoute, PreparedRoute>>();

function prepareRoute(schema: GraphQLSchema, route: FacadeRoute): PreparedRoute {
  let bySchema = preparedRoutes.get(schema);
  if (!bySchema) preparedRoutes.set(schema, (bySchema = new Map()));
  const known = bySchema.get(route);
  if (known) return known;
  const operation = loadOperation(schema, route.operation);
  // `data` is declared once, by the operation's selection over the GraphQL schema (derive-schema.ts).
  const data = routeDataSchema(schema, route, operation.document);
  const prepared = { operation, source: dataSource(route, operation), data, toRest: compileDataConverter(data, `${route.method} ${route.url} data`) };
  bySchema.set(route, prepared);
  return prepared;
}

/** The REST v1 facade: every route runs a stored GraphQL operation in-process. */
export async function restFacade(app: FastifyInstance, options: FacadeOptions): Promise<void> {
  const implemented = new Map<string, Set<string>>();
  for (const route of routes) {
    const { operation, source, data, toRest } = prepareRoute(options.schema, route);
    implemented.set(route.url, (implemented.get(route.url) ?? new Set()).add(route.method));
    app.route({
      method: route.method,
      url: route.url,
      schema: facadeRouteSchema(route, data),
      // Who is asking comes before what they sent: a missing key is 401 and a read key on a write
      // is 403 whatever the body holds (and a body is never validated for a caller who may not send it).
      preValidation: async (request, reply) => {
        if (!(await options.authorize(request, reply, route.scope))) return reply;
        return undefined;
      },
      handler: async (request, reply) => {
        const input: RouteInput = {
          query: (request.query ?? {}) as Record<string, unknown>,
          params: (request.params ?? {}) as Record<string, string>,
          body: request.body,
        };
        // One rate-limit token per call whatever its size; its work (page size, ids) decides whether it waits its turn.
        if (!(await options.charge(request, reply, { tokens: 1, work: storedWork(options.schema, operation, route.variables(input, request)) }))) return reply;
        // Each attempt gets a fresh context; a GET whose connection broke runs once more (src/http/graphql/retry-read.ts).
        const run = async (): Promise<ExecutionResult> => operation.compiled.query(undefined, await options.makeContext(request), route.variables(input, request));
        const { value: result, queryCount } = await options.runCounted(route.method === 'GET' ? () => retryReadOnce(run, lostConnectionIn, request.log) : run);
        if (options.exposeQueryCount) reply.header('X-Query-Count', String(queryCount));
        if (result.errors?.length) throw toDomainError(result.errors[0]!);
        // Converting and serializing a large result is CPU work: give other requests' I/O a turn
        // before each step (src/kernel/cooperative.ts), so a 1000-row page does not hold other shops.
        await yieldToLoop();
        const data = toRest(source(result.data as GraphQLData, input));
        await yieldToLoop();
        // Written here by JSON.stringify, which writes the figures' exact text (derive-data.ts): the
        // route's compiled serializer would write each through a double. `data` has its schema's shape.
        reply.type('application/json; charset=utf-8');
        return JSON.stringify(envelope(request.id, data, options.warningsFor?.(request)));
      },
    });
  }

  registerOpenApiRoute(app);
  implemented.set('/openapi.json', new Set(['GET']));

  for (const [url, methods] of Object.entries(CONTRACT_PATHS)) {
    const allow = allowHeader(methods);
    // Every route of API v1 is implemented: a contract method without its route fails the boot (and a test).
    const missing = methods.filter((m) => !implemented.get(url)?.has(m));
    if (missing.length > 0) throw new Error(`API v1 names ${missing.join(', ')} ${url}, and no route implements it`);
    const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('Allow', allow);
      return sendProblem(request, reply, { code: 'METHOD_NOT_ALLOWED', detail: `${request.method} is not allowed here; use ${allow}` });
    };
    app.route({
      method: [...FOREIGN_METHODS, ...(['GET', 'PATCH'] as const).filter((m) => !methods.includes(m))],
      url,
      schema: { hide: true },
      config: { methodNotAllowed: true },
      // Refused on arrival, before a body is read: a PUT or DELETE with a text body is 405, not 415 or 413.
      onRequest: (request, reply) => refuse(request, reply),
      handler: (request, reply) => refuse(request, reply),
    });
  }
}
