import { randomBytes } from 'node:crypto';
import type { Orm } from '../../db/orm.ts';

/** How long a key's stored response is replayed, from the key's first use. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse { status: number; headers: Record<string, string>; body: string }

/** What a request carrying a key finds. */
export type ClaimResult =
  /** The key is new (or its 24 h passed): this request runs, then `complete` or `release` with the token. */
  | { kind: 'claimed'; token: string }
  /** The key was used with another request (method, path or body). */
  | { kind: 'mismatch' }
  /** The first request with this key has not answered yet (`since`: when it started). */
  | { kind: 'in_flight'; since: Date }
  /** The first request answered: its response. */
  | { kind: 'done'; response: StoredResponse };

interface Row {
  request_hash: string;
  state: string;
  response_status: number | null;
  response_headers: Record<string, string> | string | null;
  response_body: string | null;
  created_at: Date | string;
}

/**
 * The idempotency keys of PATCH requests, in PostgreSQL (or PGlite), so every instance on the
 * database sees them. Raw SQL with the shop id in every statement (the table is shop-owned).
 */
export class IdempotencyStore {
  readonly #orm: Orm;
  readonly #lastPurge = new Map<string, number>();

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  /**
   * Claims `key` for a request whose hash is `requestHash`: inserts it `in_flight`, or takes over
   * a key whose 24 h passed; otherwise reports what the key holds. One statement decides, so of
   * two requests with the same key at once exactly one is `claimed`.
   */
  async claim(shopId: string, key: string, requestHash: string, now = new Date()): Promise<ClaimResult> {
    const em = this.#orm.em.fork();
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = randomBytes(12).toString('hex');
      const claimed = await em.execute<{ claim_token: string }[]>(
        `insert into idempotency_keys (shop_id, key, request_hash, state, claim_token, created_at, expires_at)
         values (?, ?, ?, 'in_flight', ?, ?, ?)
         on conflict (shop_id, key) do update set
           request_hash = excluded.request_hash, state = 'in_flight', claim_token = excluded.claim_token,
           response_status = null, response_headers = null, response_body = null,
           created_at = excluded.created_at, expires_at = excluded.expires_at
         where idempotency_keys.expires_at <= excluded.created_at
         returning claim_token`,
        [shopId, key, requestHash, token, now, expiresAt],
      );
      if (claimed[0]?.claim_token === token) return { kind: 'claimed', token };
      const [row] = await em.execute<Row[]>(
        `select request_hash, state, response_status, response_headers, response_body, created_at
           from idempotency_keys where shop_id = ? and key = ?`,
        [shopId, key],
      );
      // Released (its first request failed) between the two statements: claim again.
      if (!row) continue;
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (row.state !== 'done' || row.response_status === null) return { kind: 'in_flight', since: new Date(row.created_at) };
      const headers = typeof row.response_headers === 'string' ? JSON.parse(row.response_headers) : (row.response_headers ?? {});
      return { kind: 'done', response: { status: row.response_status, headers, body: row.response_body ?? '' } };
    }
    return { kind: 'in_flight', since: now };
  }

  /** Stores the response of the request holding `token`; replayed from now on. */
  async complete(shopId: string, key: string, token: string, response: StoredResponse): Promise<void> {
    await this.#orm.em.fork().execute(
      `update idempotency_keys set state = 'done', response_status = ?, response_headers = cast(? as jsonb), response_body = ?
        where shop_id = ? and key = ? and claim_token = ?`,
      [response.status, JSON.stringify(response.headers), response.body, shopId, key, token],
    );
  }

  /** Forgets the key (its request failed with a 5xx and changed nothing): a retry runs again. */
  async release(shopId: string, key: string, token: string): Promise<void> {
    await this.#orm.em.fork().execute(
      'delete from idempotency_keys where shop_id = ? and key = ? and claim_token = ?', [shopId, key, token],
    );
  }

  /** Deletes the shop's expired keys; at most once a minute per shop and process (cleanup on write). */
  async purgeExpired(shopId: string, now = new Date()): Promise<number> {
    const last = this.#lastPurge.get(shopId) ?? 0;
    if (now.getTime() - last < 60_000) return 0;
    this.#lastPurge.set(shopId, now.getTime());
    if (this.#lastPurge.size > 10_000) this.#lastPurge.clear();
    const deleted = await this.#orm.em.fork().execute<{ key: string }[]>(
      'delete from idempotency_keys where shop_id = ? and expires_at <= ? returning key', [shopId, now],
    );
    return deleted.length;
  }
}
