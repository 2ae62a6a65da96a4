import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AnswerClock } from '../../kernel/answer-clock.ts';
import { buildId } from '../../kernel/build-id.ts';

/**
 * Conditional GET of shop data (docs/api-conventions.md, "Caching"): every 200 of an authenticated
 * GET under /api/v1 carries a strong `ETag` and `Cache-Control: private, no-cache`; a request whose
 * `If-None-Match` names the current tag is answered 304 with no body, before the read runs.
 *
 * The tag is known before the read: it hashes the shop's data version (read with the API key, in
 * the same statement: src/modules/auth/keys.ts), the request (route, path parameters, the validated
 * query with its defaults, the key's scopes) and the build id (src/kernel/build-id.ts). The database raises
 * the data version at the commit of every transaction that changed a row of the shop
 * (Migration20261130100000), so any write that can change an answer changes the tag, and one of
 * another shop does not. The version is read before the read's own statements, so an answer is
 * never older than its tag says.
 *
 * An answer that also changes with the clock (src/kernel/answer-clock.ts: a work order becoming OVERDUE)
 * names the instant while it is built; its tag then carries that instant (`"<hash>.<instant>"`,
 * the instant in base 36 milliseconds, inside the hash) and matches nothing from that instant on.
 *
 * The tag is strong: what else differs between two answers with one tag is per-response metadata,
 * not the answer (`meta.requestId`, the `generatedAt` moment of an order breakdown).
 */

/** Cache-Control of a tagged read: a cache may keep it for this caller only, and asks (If-None-Match) before each reuse. */
export const CACHEABLE_READ = 'private, no-cache';

/** Longest If-None-Match considered (documented in the OpenAPI document); a longer one is ignored and the read answered in full. */
export const MAX_IF_NONE_MATCH_LENGTH = 2048;

/** The form of a tag (documented in the OpenAPI document). */
export const ETAG_PATTERN = '^"[A-Za-z0-9_-]+(\\.[0-9a-z]+)?"$';

const API_PREFIX = '/api/v1/';

declare module 'fastify' {
  interface FastifyRequest {
    /** The hash of what a conditional read's tag is built from (null: not a conditional read). */
    readTagBase: string | null;
    /** The clock of the request's read (created on first use). */
    answerClock: AnswerClock | null;
  }
}

/** The request's read clock: the shop context hands it to the services (src/http/auth/auth.ts). */
export function answerClockOf(request: FastifyRequest): AnswerClock {
  request.answerClock ??= new AnswerClock();
  return request.answerClock;
}

/** Object keys sorted at every depth: a query is one text whatever the order its parameters came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

/**
 * What the tag of a read of `request` is built from, hashed: everything that decides the answer but
 * the clock. `notes` is what the answer carries besides the shop's data (the platform warnings of
 * a store that does not answer, with their age as of the read's clock).
 */
export function readTagBase(request: FastifyRequest, notes: unknown = null): string {
  const auth = request.auth!;
  return createHash('sha256').update(canonical([
    buildId(), auth.shopId, auth.dataVersion, [...auth.scopes].sort(), request.method, request.routeOptions.url ?? request.url,
    request.params ?? {}, request.query ?? {}, notes,
  ])).digest('base64url');
}

export interface ConditionalGetOptions {
  /** What an answer of `request` says besides the shop's data and is not in the data version (in the tag). No SQL. */
  answerNotes?: (request: FastifyRequest) => unknown;
}

/** The tag of an answer of `base` that holds until `validUntil` (epoch ms), or for good (null). */
export function entityTag(base: string, validUntil: number | null): string {
  const until = validUntil === null ? '' : `.${validUntil.toString(36)}`;
  return `"${createHash('sha256').update(base).update(until).digest('base64url')}${until}"`;
}

/** The If-None-Match header of a request, if it is not too long to be considered. */
function ifNoneMatchOf(request: FastifyRequest): string | undefined {
  const header = request.headers['if-none-match'];
  const value = Array.isArray(header) ? header.join(', ') : header;
  return value !== undefined && value.length <= MAX_IF_NONE_MATCH_LENGTH ? value : undefined;
}

/**
 * RFC 9110 §13.1.2: the header is a list of entity tags compared weakly (`W/` ignored). A tag is
 * current when it is the tag of `base` and its instant, if it has one, is still ahead of `now`. A
 * malformed header matches nothing: the read is answered in full, never refused. Answers the
 * matching tag. (`*` is not a tag: it is judged once the read has run, see below.)
 */
export function currentTagIn(header: string | undefined, base: string, now: number): string | null {
  if (header === undefined) return null;
  for (const match of header.matchAll(/(?:W\/)?"([A-Za-z0-9_-]+)(?:\.([0-9a-z]{1,12}))?"/g)) {
    const until = match[2] === undefined ? null : parseInt(match[2], 36);
    if (until !== null && now >= until) continue;
    const tag = entityTag(base, until);
    if (tag === match[0].replace(/^W\//, '')) return tag;
  }
  return null;
}

/** A read of shop data: GET under /api/v1 of a route, by a key (the public OpenAPI document has none). */
function isShopRead(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.auth !== null && request.url.startsWith(API_PREFIX) && request.routeOptions.url !== undefined;
}

/**
 * Answers a matching If-None-Match with 304 before the handler runs (after the key, its scope and
 * the query were checked), and tags the 200s. Registered before the security headers, whose
 * `Cache-Control: no-store` then stays on everything else (errors, 401/403/429, PATCH, non-shop routes).
 */
export function registerConditionalGet(app: FastifyInstance, options: ConditionalGetOptions = {}): void {
  app.decorateRequest('readTagBase', null);
  app.decorateRequest('answerClock', null);
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isShopRead(request)) return undefined;
    const base = readTagBase(request, options.answerNotes?.(request) ?? null);
    request.readTagBase = base;
    const current = currentTagIn(ifNoneMatchOf(request), base, Date.now());
    if (current === null) return undefined;
    // 304: the tag the client holds and Cache-Control, no body (and so no Content-Type or Content-Length).
    reply.header('ETag', current);
    reply.header('Cache-Control', CACHEABLE_READ);
    return reply.code(304).send();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.readTagBase === null || reply.statusCode !== 200) return payload;
    reply.header('ETag', entityTag(request.readTagBase, request.answerClock?.validUntil ?? null));
    reply.header('Cache-Control', CACHEABLE_READ);
    // `*` matches any current answer (RFC 9110): whether there is one (200, not 404) is known only
    // once the read has run, so `*` saves the transfer, not the read.
    if (ifNoneMatchOf(request)?.trim() !== '*') return payload;
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return null;
  });
}
