import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, parse, validate, type DocumentNode } from 'graphql';
import type { EmulatorContext, EmulatorCore } from './context.ts';
import { findOperation, operationCost } from './cost.ts';
import { executeDocument } from './engine.ts';
import { missingInputMessage, missingMandatoryInputs } from './mandatory-inputs.ts';
import { dateTime } from './gid.ts';
import { parseTokenBody, type OAuthServer } from './oauth.ts';
import type { EmulatedShop, RequestLogEntry } from './shop.ts';

export const INVALID_TOKEN_BODY = { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' };
const RATE_DOC = 'https://shopify.dev/api/usage/rate-limits';

export interface Router {
  core: EmulatorCore;
  oauth: OAuthServer;
  /** When an expiring access token stops working (absent: never). */
  tokenExpiry: Map<string, number>;
  now: () => Date;
  maxQueryCost: number;
  shopByToken(token: string): EmulatedShop | undefined;
  shopByDomain(domain: string): EmulatedShop | undefined;
  shopById(id: string): EmulatedShop | undefined;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8', ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function handle(router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const bulkFile = /^\/bulk\/(\d+)\/(\d+)\.jsonl$/.exec(url.pathname);
  if (req.method === 'GET' && bulkFile) return serveBulkFile(router, bulkFile[1]!, bulkFile[2]!, res);
  if (url.pathname === '/admin/oauth/access_token') {
    if (req.method !== 'POST') return send(res, 405, { errors: 'Method Not Allowed' });
    const body = parseTokenBody(String(req.headers['content-type'] ?? ''), await readBody(req));
    if (!body) return send(res, 400, { error: 'invalid_request', error_description: 'the body is neither JSON nor a form' });
    const answer = router.oauth.token(body);
    return send(res, answer.status, answer.body);
  }
  const route = /^\/admin\/api\/([^/]+)\/graphql\.json$/.exec(url.pathname);
  if (!route) return send(res, 404, { errors: 'Not Found' });
  if (req.method !== 'POST') return send(res, 405, { errors: 'Method Not Allowed' });
  if (route[1] !== router.core.apiVersion) return send(res, 404, { errors: 'Not Found' });

  const token = String(req.headers['x-shopify-access-token'] ?? '');
  const host = String(req.headers.host ?? '').replace(/:\d+$/, '');
  const byHost = router.shopByDomain(host);
  const shop = router.shopByToken(token);
  if (!shop || !shop.installed || (byHost && byHost !== shop)) return send(res, 401, INVALID_TOKEN_BODY);
  // An expiring offline token (or a client credentials one) is refused once its time is up: the app
  // refreshes it (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/offline-access-tokens).
  const expiresAt = router.tokenExpiry.get(token);
  if (expiresAt !== undefined && router.now().getTime() >= expiresAt) {
    shop.requests.push({ at: dateTime(router.now()), status: 401, operationName: null, operation: null, requestedQueryCost: null, actualQueryCost: null, outcome: 'unauthorized' });
    return send(res, 401, INVALID_TOKEN_BODY);
  }

  const log: RequestLogEntry = { at: dateTime(new Date()), status: 200, operationName: null, operation: null, requestedQueryCost: null, actualQueryCost: null, outcome: 'ok' };
  shop.requests.push(log);
  const failure = shop.faults.takeFailure();
  if (failure) {
    Object.assign(log, { status: failure, outcome: 'failed' });
    return failure === 500 ? send(res, 500, { errors: 'Internal Server Error' }) : send(res, failure, failure === 502 ? '502 Bad Gateway' : '503 Service Unavailable');
  }
  const forcedThrottle = shop.faults.takeThrottle();
  if (forcedThrottle === 429) {
    Object.assign(log, { status: 429, outcome: 'throttled' });
    return send(res, 429, { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' }, { 'retry-after': '2.0' });
  }

  let payload: { query?: unknown; variables?: unknown; operationName?: unknown };
  try {
    payload = JSON.parse(await readBody(req));
  } catch {
    Object.assign(log, { status: 400, outcome: 'invalid' });
    return send(res, 400, { errors: { query: 'Required parameter missing or invalid' } });
  }
  if (typeof payload.query !== 'string' || !payload.query.trim()) {
    Object.assign(log, { status: 400, outcome: 'invalid' });
    return send(res, 400, { errors: { query: 'Required parameter missing or invalid' } });
  }
  const variables = (payload.variables && typeof payload.variables === 'object' ? payload.variables : {}) as Record<string, unknown>;
  const operationName = typeof payload.operationName === 'string' ? payload.operationName : undefined;
  let document: DocumentNode;
  try {
    document = parse(payload.query);
  } catch (error) {
    const e = error as GraphQLError;
    log.outcome = 'invalid';
    return send(res, 200, { errors: [{ message: e.message, locations: e.locations, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
  }
  const invalid = validate(shop.schema, document);
  if (invalid.length) {
    log.outcome = 'invalid';
    return send(res, 200, { errors: invalid.map((e) => ({ message: e.message, locations: e.locations, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) });
  }
  const op = findOperation(document, operationName);
  if (!op) {
    log.outcome = 'invalid';
    return send(res, 200, { errors: [{ message: `No operation named "${operationName}"`, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
  }
  log.operationName = op.name?.value ?? null;
  log.operation = op.operation;
  // Input fields the published schema says are mandatory though typed nullable (changeFromQuantity
  // since 2026-04): Shopify fails the call without them (mandatory-inputs.ts cites the pages). The
  // exact wording of Shopify's error is not published; the call failing, naming the field, is.
  const missing = missingMandatoryInputs(shop.schema, document, op, variables);
  if (missing.length) {
    log.outcome = 'invalid';
    return send(res, 200, { errors: missing.map((m) => ({ message: missingInputMessage(m), extensions: { code: 'BAD_REQUEST' } })) });
  }

  let requested: number;
  try {
    requested = operationCost(shop.schema, document, op, variables);
  } catch (error) {
    log.outcome = 'invalid';
    return send(res, 200, { errors: [{ message: (error as Error).message, extensions: { code: 'BAD_REQUEST' } }] });
  }
  log.requestedQueryCost = requested;
  const cost = (actual: number | null) => ({ requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: shop.bucket.status() });
  if (requested > router.maxQueryCost) {
    log.outcome = 'throttled';
    return send(res, 200, {
      errors: [{ message: `Query cost is ${requested}, which exceeds the single query max cost limit (${router.maxQueryCost}).`, extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: router.maxQueryCost, documentation: RATE_DOC } }],
      extensions: { cost: cost(null) },
    });
  }
  if (forcedThrottle === 'THROTTLED' || !shop.bucket.take(requested)) {
    log.outcome = 'throttled';
    return send(res, 200, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: RATE_DOC } }], extensions: { cost: cost(null) } });
  }

  const ctx: EmulatorContext = { shop, emulator: router.core, bulk: null, applied: false };
  const result = await executeDocument(ctx, document, variables, operationName);
  const actual = result.data ? operationCost(shop.schema, document, op, variables, result.data) : requested;
  log.actualQueryCost = actual;
  shop.bucket.refund(Math.max(0, requested - actual));
  if (op.operation === 'mutation' && shop.faults.timeoutsAfterApply > 0) {
    shop.faults.timeoutsAfterApply -= 1;
    log.outcome = 'timeout';
    req.socket.destroy();
    return;
  }
  const body: Record<string, unknown> = {};
  if (result.errors?.length) body.errors = result.errors.map((e) => e.toJSON());
  body.data = result.data ?? null;
  body.extensions = { cost: cost(actual) };
  send(res, 200, body);
}

function serveBulkFile(router: Router, shopId: string, id: string, res: ServerResponse): void {
  const record = router.shopById(shopId)?.store.bulkOperations.get(id);
  if (!record?.done || !record.file) return send(res, 404, { errors: 'Not Found' });
  res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': String(record.fileSize) });
  createReadStream(record.file).pipe(res);
}
