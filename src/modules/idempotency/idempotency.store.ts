import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Em, Orm } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { idempotencySql } from './tables.ts';

/** How long a key's stored response is replayed, from the key's first use. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse { status: number; headers: Record<string, string>; body: string }

/** A request's hold on a key: only the holder of `token` may record the key's outcome or release it. */
export interface Claim { shopId: string; key: string; token: string }

/** What a request carrying a key finds. */
export type ClaimResult =
  /** The key is new, its 24 h passed, or its last claim lapsed with nothing committed: this request runs. */
  | { kind: 'claimed'; claim: Claim }
  /** The key was used with another request (method, path or body). */
  | { kind: 'mismatch' }
  /** Another request holds the key until `until` (its deadline) and has not committed an outcome. */
  | { kind: 'in_flight'; until: Date }
  /** The key's request committed its outcome: its response. */
  | { kind: 'done'; response: StoredResponse };

/** Marks the key `done` with `response`, only while it is still `in_flight` under `claim`. */
function recordSql(claim: Claim, response: StoredResponse) {
  return idempotencySql.updateTable('idempotency_keys')
    .set({
      state: sql.lit('done'), response_status: response.status,
      response_headers: sql`cast(${JSON.stringify(response.headers)} as jsonb)`, response_body: response.body,
    })
    .where('shop_id', '=', claim.shopId).where('key', '=', claim.key).where('claim_token', '=', claim.token).where('state', '=', sql.lit('in_flight'))
    .returning('key');
}

/**
 * The idempotency keys of PATCH requests, in PostgreSQL (or PGlite), so every instance on the
 * database sees them. Raw SQL with the shop id in every statement (the table is shop-owned).
 *
 * A key's outcome is what committed, never what a request answered: `recordInTransaction` marks it
 * `done` with its response in the transaction of the write itself, so either both commit or
 * neither. Every later statement about a claim (`complete`, `release`) applies only while the key is
 * still `in_flight` under that claim, so a request that failed after its commit (a lost COMMIT
 * answer) cannot undo it.
 */
export class IdempotencyStore {
  readonly #orm: Orm;
  readonly #lastPurge = new Map<string, number>();

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  /**
   * Claims `key` for a request whose hash is `requestHash`, held for `holdMs` (the request's
   * deadline): inserts it `in_flight`, takes over a key whose 24 h passed, or one whose claim lapsed
   * without an outcome (same request: nothing of it committed, so running it is its first
   * application); otherwise reports what the key holds. One statement decides, so of two requests
   * with the same key at once exactly one is `claimed`.
   */
  async claim(shopId: string, key: string, requestHash: string, holdMs: number, now = new Date()): Promise<ClaimResult> {
    const em = this.#orm.em.fork();
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
    const claimedUntil = new Date(now.getTime() + holdMs);
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = randomBytes(12).toString('hex');
      const claimed = await runSql(em, idempotencySql.insertInto('idempotency_keys')
        .values({
          shop_id: shopId, key, request_hash: requestHash, state: sql.lit('in_flight'), claim_token: token,
          created_at: now, expires_at: expiresAt, claimed_until: claimedUntil,
        })
        .onConflict((oc) => oc.columns(['shop_id', 'key'])
          .doUpdateSet((eb) => ({
            state: sql.lit('in_flight'), claim_token: eb.ref('excluded.claim_token'), claimed_until: eb.ref('excluded.claimed_until'),
            request_hash: eb.ref('excluded.request_hash'), response_status: null, response_headers: null, response_body: null,
            created_at: eb.case().when('idempotency_keys.expires_at', '<=', eb.ref('excluded.created_at')).then(eb.ref('excluded.created_at'))
              .else(eb.ref('idempotency_keys.created_at')).end(),
            expires_at: eb.case().when('idempotency_keys.expires_at', '<=', eb.ref('excluded.created_at')).then(eb.ref('excluded.expires_at'))
              .else(eb.ref('idempotency_keys.expires_at')).end(),
          }))
          .where((eb) => eb.or([
            eb('idempotency_keys.expires_at', '<=', eb.ref('excluded.created_at')),
            eb.and([
              eb('idempotency_keys.state', '=', sql.lit('in_flight')), eb('idempotency_keys.claimed_until', '<=', eb.ref('excluded.created_at')),
              eb('idempotency_keys.request_hash', '=', eb.ref('excluded.request_hash')),
            ]),
          ])))
        .returning('claim_token'));
      if (claimed[0]?.claim_token === token) return { kind: 'claimed', claim: { shopId, key, token } };
      const [row] = await runSql(em, idempotencySql.selectFrom('idempotency_keys')
        .select(['request_hash', 'state', 'response_status', 'response_headers', 'response_body', 'claimed_until'])
        .where('shop_id', '=', shopId).where('key', '=', key));
      // Released between the two statements (its request failed): claim again.
      if (!row) continue;
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (row.state !== 'done' || row.response_status === null) {
        const until = new Date(row.claimed_until);
        // Lapsed between the two statements: take it over.
        if (until.getTime() <= now.getTime()) continue;
        return { kind: 'in_flight', until };
      }
      const headers = typeof row.response_headers === 'string' ? JSON.parse(row.response_headers) : (row.response_headers ?? {});
      return { kind: 'done', response: { status: row.response_status, headers, body: row.response_body ?? '' } };
    }
    return { kind: 'in_flight', until: claimedUntil };
  }

  /**
   * In the write's own transaction `tx`: marks the key `done` with `response`. False when the claim
   * is no longer this request's (it lapsed and a retry took the key over): the caller must roll
   * back, or the write would apply twice.
   */
  async recordInTransaction(tx: Em, claim: Claim, response: StoredResponse): Promise<boolean> {
    const rows = await runSql(tx, recordSql(claim, response));
    return rows.length === 1;
  }

  /** Stores the answer of a claimed request that wrote nothing (a 4xx); replayed from now on. */
  async complete(claim: Claim, response: StoredResponse): Promise<void> {
    await runSql(this.#orm.em.fork(), recordSql(claim, response));
  }

  /**
   * Gives the key back after a failed request (5xx, 429): a retry runs at once. A no-op when the
   * key is `done` — the request's write committed even though it answered an error (its COMMIT's
   * answer was lost): the retry then replays the committed response.
   */
  async release(claim: Claim): Promise<void> {
    await runSql(this.#orm.em.fork(), idempotencySql.deleteFrom('idempotency_keys')
      .where('shop_id', '=', claim.shopId).where('key', '=', claim.key).where('claim_token', '=', claim.token).where('state', '=', sql.lit('in_flight')));
  }

  /** Deletes the shop's expired keys; at most once a minute per shop and process (cleanup on write). */
  async purgeExpired(shopId: string, now = new Date()): Promise<number> {
    const last = this.#lastPurge.get(shopId) ?? 0;
    if (now.getTime() - last < 60_000) return 0;
    this.#lastPurge.set(shopId, now.getTime());
    if (this.#lastPurge.size > 10_000) this.#lastPurge.clear();
    const deleted = await runSql(this.#orm.em.fork(), idempotencySql.deleteFrom('idempotency_keys')
      .where('shop_id', '=', shopId).where('expires_at', '<=', now).returning('key'));
    return deleted.length;
  }
}
