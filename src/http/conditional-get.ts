import { createHash } from 'node:crypto';
import { yieldToLoop } from '../cooperative.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Conditional GET of shop data (docs/api-conventions.md, "Caching"): every 200 of an authenticated
 * GET under /api/v1 carries an `ETag` and `Cache-Control: private, no-cache`; a request whose
 * `If-None-Match` names the current tag is answered 304 with no body.
 *
 * The tag is a hash of the response body itself, so any write that changes the answer changes the
 * tag by construction, whatever changed it (a PATCH, a build run, an order from the platform, a live
 * platform level). It is salted with the key's shop: two shops never share a tag, so a client that
 * switches keys never gets a 304 for the other shop's copy. The read still runs in full before the
 * tag is known; a 304 saves the transfer, not the work.
 *
 * The tag is weak (`W/"…"`): the body also carries what differs from one read to the next without
 * the answer changing (`meta.requestId`, the `generatedAt` of an order breakdown), which the hash
 * leaves out, so two reads with one tag are equivalent, not byte for byte identical.
 */

/** Cache-Control of a tagged read: a cache may keep it for this caller only, and asks (If-None-Match) before each reuse. */
export const CACHEABLE_READ = 'private, no-cache';

/** Longest If-None-Match considered (documented in the OpenAPI document); a longer one is ignored and the read answered in full. */
export const MAX_IF_NONE_MATCH_LENGTH = 2048;

/** Fields that say when a response was made, not what it says: left out of the tag. */
const MOMENT_FIELDS = /"generatedAt":"[^"]*"/g;

const API_PREFIX = '/api/v1/';

/** Bodies above this many characters are hashed in a turn of the event loop of their own. */
const LARGE_BODY = 64 * 1024;

/** The tag of a read of `shopId` whose serialized body is `body` (the request's own id left out). */
export function entityTag(shopId: string, body: string, requestId: string): string {
  const hash = createHash('sha256').update(shopId).update('\n');
  // The body is hashed piece by piece between the left-out spans: no copy of a 1.5 MB body is made.
  const marker = `"requestId":${JSON.stringify(requestId)}`;
  const markerAt = body.lastIndexOf(marker);
  const skipped: [number, number][] = [];
  for (const match of body.matchAll(MOMENT_FIELDS)) skipped.push([match.index, match.index + match[0].length]);
  if (markerAt >= 0) skipped.push([markerAt, markerAt + marker.length]);
  skipped.sort((a, b) => a[0] - b[0]);
  let from = 0;
  for (const [start, end] of skipped) {
    if (start < from) continue;
    if (start > from) hash.update(body.slice(from, start));
    from = end;
  }
  if (from < body.length) hash.update(from === 0 ? body : body.slice(from));
  return `W/"${hash.digest('base64url')}"`;
}

/**
 * RFC 9110 §13.1.2: `*` matches any current representation; otherwise the header is a list of
 * entity tags compared weakly (`W/` ignored on both sides). A malformed or overlong header
 * matches nothing: the read is answered in full, never refused.
 */
export function ifNoneMatchHits(header: string | undefined, tag: string): boolean {
  if (header === undefined || header.length > MAX_IF_NONE_MATCH_LENGTH) return false;
  if (header.trim() === '*') return true;
  const opaque = tag.replace(/^W\//, '');
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) if (match[1] === opaque) return true;
  return false;
}

/** A successful read of shop data: GET, 200, under /api/v1, by a key (the public OpenAPI document has none). */
function isShopRead(request: FastifyRequest, reply: FastifyReply): boolean {
  return request.method === 'GET' && reply.statusCode === 200 && request.auth !== null && request.url.startsWith(API_PREFIX);
}

/**
 * Tags shop reads and answers 304 to a matching If-None-Match. Registered before the security
 * headers, whose `Cache-Control: no-store` then stays on everything else (errors, 401/403/429,
 * PATCH, non-shop routes).
 */
export function registerConditionalGet(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!isShopRead(request, reply)) return payload;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    if (body === undefined) return payload;
    // A large body has just been serialized in this turn of the event loop: hashing it too (about
    // 5 ms per 2 MB) would make one long pause of the two. Other shops' requests go in between.
    if (body.length > LARGE_BODY) await yieldToLoop();
    const tag = entityTag(request.auth!.shopId, body, request.id);
    reply.header('ETag', tag);
    reply.header('Cache-Control', CACHEABLE_READ);
    const ifNoneMatch = request.headers['if-none-match'];
    if (!ifNoneMatchHits(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch, tag)) return payload;
    // 304: the same ETag and Cache-Control, no body (and so no Content-Type or Content-Length).
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return null;
  });
}
