import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DomainError } from '../../kernel/domain-error.ts';

// Where a webhook may go (SSRF). A URL is checked when an endpoint is saved (scheme, credentials,
// literal addresses, `localhost`) and again at every connection: the host is resolved, every
// address it resolves to must be public, and the connection goes to the address that was checked
// (the lookup given to the request answers it), so a DNS answer that changes between the check and
// the connection (rebinding) cannot reach an inner address. BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1 lifts
// the address rule (a receiver on the same machine or network).

const refused = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32],
] as const) refused.addSubnet(net, prefix, 'ipv6');

/** Loopback, private, link-local, unique-local, shared, multicast, reserved, or an IPv4-mapped one of those. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return refused.check(mapped[1]!, 'ipv4');
  // ::ffff:7f00:1 (hex form of a mapped address)
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped) {
    const [hi, lo] = [parseInt(hexMapped[1]!, 16), parseInt(hexMapped[2]!, 16)];
    return refused.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return refused.check(address, 'ipv6');
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
