import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Em, Orm } from '../../db/orm.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { IdempotencyStore, type Claim, type StoredResponse } from '../../modules/idempotency/idempotency.store.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { droppingLateAnswers, pastDeadline } from '../admission/deadline.ts';
import { sendProblem } from '../errors/problem.ts';

/** The request header, and what a key may be: 1–255 visible ASCII characters (a UUID, say). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Response headers stored and replayed with the body (the rest belong to the replaying request). */
const REPLAYED_HEADERS = ['content-type', 'retry-after', 'location', 'etag', 'last-modified', 'allow', 'www-authenticate'];
/** What Fastify would send a serialised object as. */
const JSON_TYPE = 'application/json; charset=utf-8';
/** How long a claim is held when requests have no deadline (BOMCORE_REQUEST_DEADLINE_MS=0). */
const HOLD_WITHOUT_DEADLINE_MS = 60_000;

/** A claimed request's key, its write transaction and what it answered. */
interface Claimed {
  claim: Claim;
  /** The route handler is running: the key is settled by it once its transaction has ended. */
  running: boolean;
  /** The write's transaction, begun when the route built its shop context; the key's outcome commits in it. */
  tx: Em | null;
  /** An answer sent while the handler ran (the deadline's 503, a 429), settled once the transaction ended. */
  sentMeanwhile: Answer | null;
  /** The key's outcome is recorded (committed with the write, stored, or released). */
  settled: boolean;
}
interface Answer { status: number; headers: Record<string, string>; body: string | null }

const CLAIMED = Symbol('idempotency claim');
type WithClaim = FastifyRequest & { [CLAIMED]?: Claimed };

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

function replayedHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

export interface IdempotentWrites {
  /**
   * The shop context a claimed request's route runs its operation with: bound to a transaction
   * begun here and committed only together with the key's outcome (a request without a claim
   * gets `ctx` as is). The REST facade builds every context through this.
   */
  contextFor(request: FastifyRequest, ctx: ShopContext): Promise<ShopContext>;
}

/**
 * `Idempotency-Key` on every PATCH of REST v1 (routes under `/api/v1/`). The first request with a
 * key claims it for its shop, until its deadline (`holdMs`), and runs; for 24 h a request with the
 * same key and the same method, path and body gets its stored response (`Idempotency-Replayed:
 * true`) without running. The same key with another request is 422 IDEMPOTENCY_KEY_REUSED; while
 * the claim is held, 409 CONFLICT with Retry-After. Runs after authentication and body validation
 * (`preHandler`), so keys are per shop and a 400/401/403/429 claims nothing.
 *
 * What a key holds is what committed: the write, the key's `done` mark and the response commit in
 * one transaction (begun by `contextFor`, committed by the route wrapper once the response is
 * serialised). A request that fails (5xx, 429, the deadline's 503) rolls back and gives the key
 * back, unless its COMMIT went through — then the key is `done` and a retry replays it. A claim
 * whose request died without giving it back lapses at its deadline and a retry runs (nothing of the
 * first committed). 4xx answers of requests that wrote nothing are stored after the rollback.
 */
export function registerIdempotency(app: FastifyInstance, deps: { orm: Orm; holdMs: number }): IdempotentWrites {
  const store = new IdempotencyStore(deps.orm);
  const holdMs = deps.holdMs > 0 ? deps.holdMs : HOLD_WITHOUT_DEADLINE_MS;

  /** Records what a request answered outside its transaction: release on 5xx/429, else store. */
  const settle = async (request: FastifyRequest, claimed: Claimed, answer: Answer) => {
    claimed.settled = true;
    try {
      if (answer.status >= 500 || answer.status === 429 || answer.body === null) await store.release(claimed.claim);
      else await store.complete(claimed.claim, { status: answer.status, headers: answer.headers, body: answer.body });
    } catch (error) {
      // The key stays claimed until its deadline, then a retry runs (nothing of this request committed).
      request.log.warn({ err: error }, 'idempotency: the key could not be settled; it is held until its deadline');
    }
  };

  app.addHook('preHandler', async (request: WithClaim, reply: FastifyReply) => {
    if (request.method !== 'PATCH' || !request.auth || !request.url.startsWith('/api/v1/')) return undefined;
    const raw = request.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return undefined;
    const key = Array.isArray(raw) ? raw.join(',') : raw;
    if (!KEY_PATTERN.test(key)) {
      const message = 'must be 1–255 visible ASCII characters (a UUID, for example)';
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: `Idempotency-Key: ${message}`, errors: [{ field: 'Idempotency-Key', message }] });
    }
    const result = await store.claim(request.auth.shopId, key, requestHash(request), holdMs);
    switch (result.kind) {
      case 'claimed':
        request[CLAIMED] = { claim: result.claim, running: false, tx: null, sentMeanwhile: null, settled: false };
        // The deadline answered while the key was being claimed: the handler will not run (see the wrapper).
        if (pastDeadline(request)) await settle(request, request[CLAIMED], { status: 503, headers: {}, body: null });
        return undefined;
      case 'mismatch':
        return sendProblem(request, reply, {
          code: 'IDEMPOTENCY_KEY_REUSED',
          detail: 'this Idempotency-Key was used with another request (method, path or body) in the last 24 h; use a new key for a new request',
        });
      case 'in_flight':
        reply.header('Retry-After', '1');
        return sendProblem(request, reply, {
          code: 'CONFLICT',
          detail: `a request with this Idempotency-Key is still being processed; retry after it answers (if it failed without answering, the key is free again from ${result.until.toISOString()})`,
        });
      case 'done': {
        const { status, headers, body } = result.response;
        for (const [name, value] of Object.entries(headers)) reply.header(name, value);
        reply.header('Idempotency-Replayed', 'true');
        return reply.status(status).send(body);
      }
    }
  });

  // A claimed PATCH runs its handler, then commits the key's outcome with its write (or rolls both back).
  // Outermost, what this wrapper itself throws or returns after the deadline answered (a COMMIT that
  // failed, a key taken over by a retry) is dropped too, not sent over the 503.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('PATCH')) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = droppingLateAnswers(async function idempotent(this: FastifyInstance, request: WithClaim, reply: FastifyReply) {
      const claimed = request[CLAIMED];
      if (!claimed) return handler.call(this, request, reply);
      // Answered 503 by the deadline before it started. `reply` (not undefined): its 503 may still be in
      // its onSend hooks, and Fastify would send an undefined result a second time.
      if (claimed.settled || pastDeadline(request)) return reply;
      claimed.running = true;
      try {
        const value: unknown = await handler.call(this, request, reply);
        // The deadline answered 503, or the handler answered by itself (a 429): nothing of it is kept.
        if (pastDeadline(request)) return reply;
        if (reply.sent || value === undefined) return value;
        if (!claimed.tx) return value; // wrote nothing through a shop context: onSend stores the answer
        // The bytes stored are the bytes sent: the answer as the handler wrote it (the REST facade
        // writes its JSON itself), else serialised here with the route's response schema.
        const body = typeof value === 'string' ? value : reply.serialize(value) as string;
        const headers = { 'content-type': JSON_TYPE, ...replayedHeaders(reply) };
        const response: StoredResponse = { status: reply.statusCode, headers, body };
        if (!(await store.recordInTransaction(claimed.tx, claimed.claim, response))) {
          throw new DomainError('CONFLICT', 'this request outlived its deadline and a retry with its Idempotency-Key took the key over; this one applied nothing');
        }
        await claimed.tx.commit();
        claimed.tx = null;
        claimed.settled = true;
        // The deadline answered 503 during the COMMIT: that answer is on its way (a retry replays this one).
        if (pastDeadline(request)) return reply;
        // Set only now: an error answered instead (a failed COMMIT) keeps its own media type.
        reply.header('content-type', headers['content-type']);
        return body;
      } finally {
        if (claimed.tx) {
          const tx = claimed.tx;
          claimed.tx = null;
          // A failed COMMIT lands here too: if it went through after all, the key is `done` and `settle` leaves it.
          await tx.rollback().catch((error: unknown) => request.log.warn({ err: error }, 'idempotency: rollback failed'));
        }
        // Only now: an answer sent during the rollback (the deadline's) is settled here, after it.
        claimed.running = false;
        if (claimed.sentMeanwhile && !claimed.settled) await settle(request, claimed, claimed.sentMeanwhile);
      }
    } as RouteHandlerMethod);
  });

  app.addHook('onSend', async (request: WithClaim, reply, payload) => {
    const claimed = request[CLAIMED];
    if (!claimed || claimed.settled) return payload;
    const answer: Answer = { status: reply.statusCode, headers: replayedHeaders(reply), body: payloadText(payload) };
    // Its transaction may hold the only connection (the embedded database): settled once it ended.
    if (claimed.running) claimed.sentMeanwhile = answer;
    else await settle(request, claimed, answer);
    return payload;
  });

  app.addHook('onResponse', async (request) => {
    if (request.method !== 'PATCH' || !request.auth || request.headers[IDEMPOTENCY_HEADER] === undefined) return;
    try {
      await store.purgeExpired(request.auth.shopId);
    } catch (error) {
      request.log.warn({ err: error }, 'idempotency: expired keys could not be purged');
    }
  });

  return {
    async contextFor(request: WithClaim, ctx) {
      const claimed = request[CLAIMED];
      if (!claimed?.running) return ctx;
      if (!claimed.tx) {
        await ctx.em.begin();
        claimed.tx = ctx.em;
        return ctx;
      }
      return { ...ctx, em: claimed.tx, platform: ctx.platformFor(claimed.tx) };
    },
  };
}
