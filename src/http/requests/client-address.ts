import type { TrustProxy } from '../../kernel/config.ts';

// TRUST_PROXY is parsed with the rest of the configuration (src/kernel/config.ts, parseTrustProxy).

/**
 * Fastify's `trustProxy` option for a TRUST_PROXY setting. A hop count becomes a function: Fastify
 * itself ignores a numeric trustProxy (it cannot tell a proxy from a client), so `n` trusts the
 * peer and the n - 1 addresses before it, and `request.ip` is the one appended before those.
 */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust;
}
