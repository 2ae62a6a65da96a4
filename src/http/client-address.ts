import { isIP } from 'node:net';

/**
 * Which hops of `X-Forwarded-For` the server believes (TRUST_PROXY). `false`: none, the client is
 * the socket's peer; a number: that many proxies stand in front (the peer and the entries it and
 * the ones before it appended); a list: peers whose address is in one of these ranges are proxies.
 */
export type TrustProxy = false | number | string[];

/** Named ranges the list form also accepts (those of Fastify's proxy-addr). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Parses TRUST_PROXY: unset, empty, `0`, `false` or `off` → off; a positive integer → hop count;
 * otherwise a comma-separated list of addresses, CIDR ranges or `loopback`/`linklocal`/`uniquelocal`.
 * `true` is refused: believing every client's `X-Forwarded-For` lets any client pick its address
 * (and so escape the failed-authentication throttle). Throws an Error naming the bad entry.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (['', '0', 'false', 'off'].includes(value.toLowerCase())) return false;
  if (/^\d+$/.test(value)) return Number(value);
  if (['true', 'on', 'yes'].includes(value.toLowerCase())) {
    throw new Error(`TRUST_PROXY=${value} would believe any client's X-Forwarded-For; give the number of proxies in front of the server (e.g. 1) or their addresses (e.g. 10.0.0.0/8)`);
  }
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad !== undefined) {
    throw new Error(`TRUST_PROXY must be a number of proxies (e.g. 1) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1); "${bad}" is neither`);
  }
  return entries;
}

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
