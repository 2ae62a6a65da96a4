import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../db/orm.ts';
import { authenticate, type AuthenticatedKey } from '../modules/auth/keys.ts';
import { shopContextFor, type ContextDeps, type ShopContext } from '../shop-context.ts';
import { sendProblem } from './problem.ts';
import type { TokenBucketLimiter } from './rate-limiter.ts';
import type { Scope } from './scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthenticatedKey | null;
  }
}

export interface AuthDeps { orm: Orm; limiter: TokenBucketLimiter }

/**
 * Authenticates the bearer key, checks the route's scope and takes a rate-limit token. Replies
 * 401 / 403 / 429 itself; on success leaves the key on `request.auth`.
 */
export async function authorizeRequest(deps: AuthDeps, request: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<boolean> {
  const em = deps.orm.em.fork();
  const result = await authenticate(em, request.headers.authorization);
  if (typeof result === 'string') {
    request.log.info({ reason: result }, 'authentication failed');
    const challenge = result === 'missing' ? 'Bearer realm="api"' : 'Bearer realm="api", error="invalid_token"';
    reply.header('WWW-Authenticate', challenge);
    sendProblem(request, reply, {
      code: 'UNAUTHENTICATED',
      detail: result === 'missing' ? 'an Authorization: Bearer <API key> header is required' : 'the API key is not valid',
    });
    return false;
  }
  const decision = deps.limiter.take(result.keyId);
  reply.header('RateLimit-Limit', String(decision.limit));
  reply.header('RateLimit-Remaining', String(decision.remaining));
  reply.header('RateLimit-Reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    reply.header('Retry-After', String(decision.retryAfterSeconds));
    sendProblem(request, reply, { code: 'RATE_LIMITED', detail: `rate limit of ${decision.limit} requests exceeded; retry in ${decision.retryAfterSeconds} s` });
    return false;
  }
  if (!result.scopes.includes(scope)) {
    reply.header('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${scope}"`);
    sendProblem(request, reply, { code: 'FORBIDDEN_SCOPE', detail: `this route needs the "${scope}" scope` });
    return false;
  }
  request.auth = result;
  return true;
}

/** A fresh per-request shop context: forked EntityManager bound to the key's shop. */
export function createShopContext(
  deps: ContextDeps,
  request: FastifyRequest,
): ShopContext {
  const auth = request.auth;
  if (!auth) throw new Error('createShopContext called on an unauthenticated request');
  return shopContextFor(deps, auth.shopId, { requestId: request.id, apiKeyId: auth.keyId, scopes: auth.scopes });
}
