import { lookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomainError } from '../../kernel/domain-error.ts';

// Where a webhook may go (SSRF). A URL is checked when an endpoint is saved (scheme, credentials,
// literal addresses, `localhost`) and again at every connection: the host is resolved, every
// address it resolves to must be public, and the connection goes to the address that was checked
// (the lookup given to the request answers it), so a DNS answer that changes between the check and
// the connection (rebinding) cannot reach an inner address. BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1 lifts
// the address rule (a receiver on the same machine or network).

/**
 * Loopback, private, link-local, unique-local, shared, multicast, documentation, benchmarking,
 * reserved, a translation or tunnel prefix (NAT64, 6to4, Teredo) or an IPv4-mapped form of one of
 * those — anything but a global unicast address, as `ipaddr.js` classifies the IANA special-purpose
 * address registries (https://www.iana.org/assignments/iana-ipv4-special-registry,
 * https://www.iana.org/assignments/iana-ipv6-special-registry). IPv4-compatible IPv6 (`::/96`,
 * deprecated by RFC 4291 section 2.5.5.1) is refused whole; an IPv4-mapped address is judged as its IPv4 address.
 * Anything that is not an address is refused.
 */
export function isRefusedAddress(address: string): boolean {
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return true;
  }
  return parsed.range() !== 'unicast';
}

export interface TargetRules { requireHttps: boolean; allowPrivate: boolean }

/** Checks an endpoint URL as it is saved; answers it normalised or throws INVALID_INPUT on `field`. */
export function checkWebhookUrl(text: string, rules: TargetRules, field = 'url'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw DomainError.invalid(field, 'is not a URL');
  }
  if (text.length > 2000) throw DomainError.invalid(field, 'is longer than 2000 characters');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !rules.requireHttps)) {
    throw DomainError.invalid(field, rules.requireHttps ? 'must be an https URL' : 'must be an https (or http) URL');
  }
  if (url.username || url.password) throw DomainError.invalid(field, 'must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!rules.allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isRefusedAddress(host)))) {
    throw DomainError.invalid(field, 'points at a loopback, private or link-local address (allowed only with BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1)');
  }
  return url.toString();
}

export class RefusedTargetError extends Error {}

/**
 * The lookup a delivery's connection uses: every address of the host must be public (unless
 * private ones are allowed); the connection goes to the first, the one checked.
 */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true, family: options.family as number | undefined }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const bad = addresses.find((a) => isRefusedAddress(a.address));
      if (!allowPrivate && bad) return callback(new RefusedTargetError(`${hostname} resolves to ${bad.address}, a loopback, private or link-local address`), '', 0);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, [first]);
      return callback(null, first.address, first.family);
    });
  };
}
