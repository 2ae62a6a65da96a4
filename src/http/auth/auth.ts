import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { authenticate, KEY_PREFIX, type AuthenticatedKey, type AuthFailure } from '../../modules/auth/keys.ts';
import { shopContextFor, type ContextDeps, type ShopContext } from '../../kernel/shop-context.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { answerClockOf } from '../requests/conditional-get.ts';
import { sendProblem } from '../errors/problem.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { Scope } from '../../kernel/scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthenticatedKey | null;
  }
}

export interface AuthDeps {
  orm: Orm; limiter: RateLimiter; authThrottle?: AuthThrottle;
  /**
   * The start-up warm-up's only (src/http/admission/warm-up.ts): the key a request stands for when the lookup
   * finds no key for it. Never set for a request from a client.
   */
  standIn?: AuthenticatedKey;
}

/**
 * Spends `spend` tokens of the key's bucket for a request costing `cost` tokens in all; sets the
 * RateLimit-* headers, and on refusal replies 429 + Retry-After saying the cost and the limit.
 */
async function spendTokens(limiter: RateLimiter, keyId: string, spend: number, cost: number, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const decision = await limiter.take(keyId, spend);
  reply.header('RateLimit-Limit', String(decision.limit));
  reply.header('RateLimit-Remaining', String(decision.remaining));
  reply.header('RateLimit-Reset', String(decision.resetSeconds));
  if (decision.allowed) return true;
  reply.header('Retry-After', String(decision.retryAfterSeconds));
  const costs = cost === 1 ? '1 token' : `${cost} tokens`;
  sendProblem(request, reply, {
    code: 'RATE_LIMITED',
    detail: `rate limit exceeded: this request costs ${costs}, the limit is ${decision.limit} tokens (refilled over time); retry in ${decision.retryAfterSeconds} s`,
  });
  return false;
}

/**
 * Charges an authorized request the rest of its `cost` in rate-limit tokens (`authorizeRequest` took
 * the first): a REST call costs 1 whatever its page size or ids, a /graphql request one per root
 * field it runs (src/http/admission/request-price.ts). Replies 429 itself and returns false when the bucket holds too few.
 */
export async function chargeRequest(deps: Pick<AuthDeps, 'limiter'>, request: FastifyRequest, reply: FastifyReply, cost: number): Promise<boolean> {
  const auth = request.auth;
  // A request never costs more than a full bucket (else it could never pass): the first token plus at most burst - 1.
  const rest = Math.min(cost - 1, deps.limiter.burst - 1);
  if (!auth || rest <= 0) return true;
  return spendTokens(deps.limiter, auth.keyId, rest, cost, request, reply);
}

/**
 * What a 401 tells the client to do. A key sent without its scheme (`Authorization: bck_…`) or
 * under another scheme (`Basic`, `Token`, a lower-case `bearer`) is told to write `Bearer`, not that
 * the key is invalid. A revoked key is told so (only its holder can learn it: the secret was
 * issued, then revoked); anything else that fails is "not valid" (the reason stays in the log).
 */
export function authFailureDetail(result: AuthFailure, header: string | undefined): string {
  if (result === 'missing') return 'an Authorization: Bearer <API key> header is required';
  if (result === 'revoked') return 'this API key was revoked';
  if (result === 'malformed' && header !== undefined) {
    const [scheme = '', ...credentials] = header.trim().split(/\s+/);
    if (scheme.startsWith(KEY_PREFIX)) return 'the Authorization header has no scheme: use Authorization: Bearer <API key>';
    // The scheme is named back only when it looks like one (never a piece of a secret).
    if (credentials.length > 0 && scheme !== 'Bearer' && /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(scheme)) {
      return `the Authorization scheme must be Bearer, not ${scheme}: use Authorization: Bearer <API key>`;
    }
  }
  return 'the API key is not valid';
}

/**
 * Authenticates the bearer key, checks the route's scope and takes a rate-limit token. Replies
 * 401 / 403 / 429 itself; on success leaves the key on `request.auth`.
 */
export async function authorizeRequest(deps: AuthDeps, request: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<boolean> {
  // Counted as a failure before the lookup; an address that failed too often is refused here, unless its key is known valid (auth-throttle.ts).
  const attempt = deps.authThrottle ? await deps.authThrottle.admit(request, reply) : null;
  if (deps.authThrottle && !attempt) return false;
  let result: AuthenticatedKey | AuthFailure;
  try {
    result = await authenticate(deps.orm.em.fork(), request.headers.authorization);
    if (result === 'unknown' && deps.standIn) result = deps.standIn;
  } catch (error) {
    await attempt?.end('undecided');
    throw error;
  }
  await attempt?.end(typeof result === 'string' ? 'invalid' : 'valid');
  if (typeof result === 'string') {
    request.log.info({ reason: result }, 'authentication failed');
    const challenge = result === 'missing' ? 'Bearer realm="api"' : 'Bearer realm="api", error="invalid_token"';
    reply.header('WWW-Authenticate', challenge);
    sendProblem(request, reply, { code: 'UNAUTHENTICATED', detail: authFailureDetail(result, request.headers.authorization) });
    return false;
  }
  if (!(await spendTokens(deps.limiter, result.keyId, 1, 1, request, reply))) return false;
  if (!result.scopes.includes(scope)) {
    reply.header('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${scope}"`);
    sendProblem(request, reply, { code: 'FORBIDDEN_SCOPE', detail: `this route needs the "${scope}" scope` });
    return false;
  }
  request.auth = result;
  return true;
}

/** A fresh per-request shop context: forked EntityManager bound to the key's shop, and the request's read clock. */
export function createShopContext(
  deps: ContextDeps,
  request: FastifyRequest,
): ShopContext {
  const auth = request.auth;
  if (!auth) throw new Error('createShopContext called on an unauthenticated request');
  return shopContextFor(deps, auth.shopId, { requestId: request.id, apiKeyId: auth.keyId, scopes: auth.scopes }, answerClockOf(request));
}
