import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { pastDeadline } from '../../http/deadline.ts';
import { sendProblem } from '../../http/problem.ts';
import { IdempotencyStore } from './idempotency.store.ts';

/** The request header, and what a key may be: 1–255 visible ASCII characters (a UUID, say). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Response headers stored and replayed with the body (the rest belong to the replaying request). */
const REPLAYED_HEADERS = ['content-type', 'retry-after', 'location', 'etag', 'last-modified', 'allow', 'www-authenticate'];
/** An `in_flight` key older than this belongs to a request that was interrupted (its outcome is unknown). */
const INTERRUPTED_AFTER_MS = 120_000;

const CLAIM = Symbol('idempotency claim');
type Claimed = FastifyRequest & { [CLAIM]?: { shopId: string; key: string; token: string } };

/** JSON with object keys sorted: the same body in another key order hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request a key is bound to: method, path with query, and body. */
export function requestHash(request: Pick<FastifyRequest, 'method' | 'url' | 'body'>): string {
  return createHash('sha256').update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`).digest('hex');
}

function payloadText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  if (payload === null || payload === undefined) return '';
  return null; // a stream: not stored
}

/**
 * `Idempotency-Key` on every PATCH of REST v1 (routes under `/api/v1/`). With the header, the
 * first request claims the key for its shop and runs; its response (2xx or 4xx) is stored and, for
 * 24 h, a request with the same key and the same method, path and body gets that response again
 * (`Idempotency-Replayed: true`) without running. The same key with another request is 422
 * IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 CONFLICT with Retry-After. A 5xx or 429
 * is not stored (the change was not applied): a retry runs again. Runs after authentication and body
 * validation (`preHandler`), so keys are per shop and a 400/401/403/429 claims nothing.
 */
export function registerIdempotency(app: FastifyInstance, deps: { orm: Orm }): void {
  const store = new IdempotencyStore(deps.orm);

  app.addHook('preHandler', async (request: Claimed, reply: FastifyReply) => {
    if (request.method !== 'PATCH' || !request.auth || !request.url.startsWith('/api/v1/')) return undefined;
    const raw = request.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return undefined;
    const key = Array.isArray(raw) ? raw.join(',') : raw;
    if (!KEY_PATTERN.test(key)) {
      const message = 'must be 1–255 visible ASCII characters (a UUID, for example)';
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: `Idempotency-Key: ${message}`, errors: [{ field: 'Idempotency-Key', message }] });
    }
    const shopId = request.auth.shopId;
    const result = await store.claim(shopId, key, requestHash(request));
    switch (result.kind) {
      case 'claimed':
        request[CLAIM] = { shopId, key, token: result.token };
        return undefined;
      case 'mismatch':
        return sendProblem(request, reply, {
          code: 'IDEMPOTENCY_KEY_REUSED',
          detail: 'this Idempotency-Key was used with another request (method, path or body) in the last 24 h; use a new key for a new request',
        });
      case 'in_flight': {
        const interrupted = Date.now() - result.since.getTime() > INTERRUPTED_AFTER_MS;
        reply.header('Retry-After', interrupted ? '60' : '1');
        return sendProblem(request, reply, {
          code: 'CONFLICT',
          detail: interrupted
            ? 'the first request with this Idempotency-Key was interrupted before its response was stored; its outcome is unknown: read the resource, and send a new request with a new key if needed'
            : 'a request with this Idempotency-Key is still being processed; retry after it answers',
        });
      }
      case 'done': {
        const { status, headers, body } = result.response;
        for (const [name, value] of Object.entries(headers)) reply.header(name, value);
        reply.header('Idempotency-Replayed', 'true');
        return reply.status(status).send(body);
      }
    }
  });

  app.addHook('onSend', async (request: Claimed, reply, payload) => {
    const claim = request[CLAIM];
    if (!claim) return payload;
    request[CLAIM] = undefined;
    // The deadline answered 503 while the handler still runs and may yet commit: the outcome is
    // unknown, so the key stays in flight (a retry is 409, never a second run).
    if (pastDeadline(request)) return payload;
    const body = payloadText(payload);
    try {
      // 5xx: the change was not applied; 429: the request did not run (its cost was refused). A retry runs.
      if (reply.statusCode >= 500 || reply.statusCode === 429 || body === null) {
        await store.release(claim.shopId, claim.key, claim.token);
      } else {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
        }
        await store.complete(claim.shopId, claim.key, claim.token, { status: reply.statusCode, headers, body });
      }
    } catch (error) {
      // The response still goes out; the key stays in flight (a retry is told the outcome is unknown).
      request.log.error({ err: error }, 'idempotency: the response could not be stored');
    }
    return payload;
  });

  app.addHook('onResponse', async (request: Claimed) => {
    if (request.method !== 'PATCH' || !request.auth || request.headers[IDEMPOTENCY_HEADER] === undefined) return;
    try {
      await store.purgeExpired(request.auth.shopId);
    } catch (error) {
      request.log.warn({ err: error }, 'idempotency: expired keys could not be purged');
    }
  });
}
