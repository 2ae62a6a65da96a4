import { createHash, randomBytes } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { SCOPES, type Scope } from '../../kernel/scopes.ts';
import { runSql } from '../../db/typed-sql.ts';
import { shopDataVersionSql } from '../shops/for-auth.ts';
import { Shop } from '../shops/shop.entity.ts';
import { ApiKey } from './api-key.entity.ts';
import { authSql } from './tables.ts';

export { SCOPES, type Scope };

/** Recognisable prefix of every secret, so leaked keys are easy to find by scanners. */
export const KEY_PREFIX = 'bck_';

export interface AuthenticatedKey {
  keyId: string; shopId: string; scopes: Scope[];
  /** The shop's data version when the key was looked up (src/modules/shops/data-version.entity.ts): what a conditional read's tag is built from. */
  dataVersion: string;
}
export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** `read` → read only; `read,write` (or `write`) → read and write. */
export function parseScopes(text: string): Scope[] {
  const parts = [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
  if (parts.length === 0 || parts.some((s) => !(SCOPES as readonly string[]).includes(s))) {
    throw DomainError.invalid('scopes', 'must be "read" or "read,write"');
  }
  return parts.includes('write') ? ['read', 'write'] : ['read'];
}

/** Durations like `30d`, `12h`, `45m`, `90s`. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([dhms])$/.exec(text.trim());
  if (!match) throw DomainError.invalid('expiresIn', 'must look like 30d, 12h, 45m or 90s');
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as 'd' | 'h' | 'm' | 's'];
  const ms = Number(match[1]) * unit;
  if (ms <= 0) throw DomainError.invalid('expiresIn', 'must be positive');
  return ms;
}

export interface CreatedKey { id: string; key: string; shopId: string; scopes: Scope[]; name: string | null; expiresAt: string | null }

export async function createApiKey(
  em: Em,
  input: { shopId: string; scopes: Scope[]; name?: string | null; expiresInMs?: number | null; now?: Date },
): Promise<CreatedKey> {
  const shop = await em.findOne(Shop, { id: input.shopId });
  if (!shop) throw DomainError.notFound('shop', input.shopId);
  const now = input.now ?? new Date();
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  const id = 'key_' + randomBytes(9).toString('base64url');
  const expiresAt = input.expiresInMs ? new Date(now.getTime() + input.expiresInMs) : null;
  em.create(ApiKey, {
    id, shopId: input.shopId, name: input.name ?? null, secretHash: hashSecret(secret), scopes: input.scopes,
    createdAt: now, expiresAt, revokedAt: null,
  });
  await em.flush();
  return { id, key: secret, shopId: input.shopId, scopes: input.scopes, name: input.name ?? null, expiresAt: expiresAt?.toISOString() ?? null };
}

export async function listApiKeys(em: Em, shopId: string) {
  const keys = await em.find(ApiKey, { shopId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return keys.map((k) => ({
    id: k.id, name: k.name ?? null, scopes: k.scopes, createdAt: k.createdAt.toISOString(),
    expiresAt: k.expiresAt?.toISOString() ?? null, revokedAt: k.revokedAt?.toISOString() ?? null,
  }));
}

export async function revokeApiKey(em: Em, id: string, now = new Date()): Promise<void> {
  const key = await em.findOne(ApiKey, { id });
  if (!key) throw DomainError.notFound('api key', id);
  if (!key.revokedAt) key.revokedAt = now;
  await em.flush();
}

const BEARER = /^Bearer ([A-Za-z0-9_-]{8,200})$/;

/**
 * One indexed lookup by hash, which also reads the shop's data version (a subquery of the same
 * statement: a conditional read then costs no statement of its own). A revoked key is still found
 * (revocation keeps the row), so its holder can be told it was revoked; the other reasons reach
 * the client as 401 only (src/http/auth/auth.ts).
 */
export async function authenticate(em: Em, header: string | undefined, now = new Date()): Promise<AuthenticatedKey | AuthFailure> {
  if (!header) return 'missing';
  const match = BEARER.exec(header.trim());
  if (!match || !match[1]!.startsWith(KEY_PREFIX)) return 'malformed';
  const [key] = await runSql(em, authSql.selectFrom('api_keys')
    .select(['id', 'shop_id', 'scopes', 'expires_at', 'revoked_at', shopDataVersionSql('api_keys.shop_id').as('data_version')])
    .where('secret_hash', '=', hashSecret(match[1]!)));
  if (!key) return 'unknown';
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && new Date(key.expires_at).getTime() <= now.getTime()) return 'expired';
  return { keyId: key.id, shopId: key.shop_id, scopes: key.scopes as Scope[], dataVersion: key.data_version ?? '0' };
}

/** Which of the keys `ids` are revoked, expired or gone (an open subscription of one is closed): one statement. */
export async function invalidKeyIds(em: Em, ids: readonly string[], now = new Date()): Promise<string[]> {
  if (ids.length === 0) return [];
  const valid = await runSql(em, authSql.selectFrom('api_keys').select('id')
    .where('id', 'in', [...ids]).where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])));
  const keep = new Set(valid.map((row) => row.id));
  return ids.filter((id) => !keep.has(id));
}
