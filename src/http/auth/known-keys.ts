import type { Orm } from '../../db/orm.ts';
import { ApiKey } from '../../modules/auth/api-key.entity.ts';

export interface KnownKeysOptions {
  /** Hashes kept at most; the least recently used go first (default 20,000; a load reads half as many). */
  capacity?: number;
  /** How long a hash stays known without being used again (ms, default 10 minutes). */
  ttlMs?: number;
  /** Reads the hashes of up to `limit` keys valid now, newest first (the database). */
  load?: (limit: number) => Promise<string[]>;
  /** Least time between two loads (ms, default 1 s): a flood of guesses costs at most one query per interval. */
  loadIntervalMs?: number;
  now?: () => number;
}

/**
 * Hashes of keys known to be valid: those that authenticated through this instance recently,
 * and those read from the database when a throttled address brings a key this list does not
 * hold. The list only exempts a key from the failed-authentication throttle: every request is
 * still authenticated by the database lookup, so a key revoked since is refused (and forgotten).
 */
export class KnownKeys {
  readonly #capacity: number;
  readonly #ttlMs: number;
  readonly #load: ((limit: number) => Promise<string[]>) | undefined;
  readonly #loadIntervalMs: number;
  readonly #now: () => number;
  /** hash → expiry; a Map iterates in insertion order, so re-inserting on use keeps it least-recently-used first. */
  readonly #hashes = new Map<string, number>();
  #lastLoadAt = Number.NEGATIVE_INFINITY;
  #scheduled: Promise<void> | null = null;

  constructor(options: KnownKeysOptions = {}) {
    this.#capacity = options.capacity ?? 20_000;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#load = options.load;
    this.#loadIntervalMs = options.loadIntervalMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  has(hash: string): boolean {
    const expiry = this.#hashes.get(hash);
    if (expiry === undefined) return false;
    if (expiry > this.#now()) return true;
    this.#hashes.delete(hash);
    return false;
  }

  remember(hash: string): void {
    this.#hashes.delete(hash);
    this.#hashes.set(hash, this.#now() + this.#ttlMs);
    if (this.#hashes.size > this.#capacity) this.#hashes.delete(this.#hashes.keys().next().value as string);
  }

  forget(hash: string): void {
    this.#hashes.delete(hash);
  }

  get size(): number {
    return this.#hashes.size;
  }

  /**
   * `has(hash)`, after a read of the valid keys from the database that started after this call: a
   * key created a moment ago, or not used for a while, is found. Reads start at most once per load
   * interval and every caller waiting meanwhile shares the next one, so a flood of guesses costs one
   * query per interval (and each guess waits up to an interval for its answer). A failed read
   * leaves the list as it was.
   */
  async hasAfterLoad(hash: string): Promise<boolean> {
    if (this.has(hash)) return true;
    if (!this.#load) return false;
    await this.#nextLoad();
    return this.has(hash);
  }

  /** The scheduled read if it has not started yet, else a new one, no sooner than the interval after the last start. */
  #nextLoad(): Promise<void> {
    if (this.#scheduled) return this.#scheduled;
    const load = this.#load!;
    const delay = Math.max(0, this.#lastLoadAt + this.#loadIntervalMs - this.#now());
    this.#scheduled = new Promise<void>((resolve) => setTimeout(resolve, delay).unref()).then(async () => {
      this.#scheduled = null;
      this.#lastLoadAt = this.#now();
      try {
        // Half the capacity, so a read never pushes out every key in use; oldest first, so the newest end up most recent.
        for (const loaded of (await load(Math.ceil(this.#capacity / 2))).reverse()) this.remember(loaded);
      } catch {
        // The database is down: the attempt is refused by the throttle, as its own lookup would fail anyway.
      }
    });
    return this.#scheduled;
  }
}

/** The hashes of up to `limit` keys that are neither revoked nor expired, newest first: one statement. */
export async function validKeyHashes(orm: Orm, limit: number, now = new Date()): Promise<string[]> {
  const keys = await orm.em.fork().find(
    ApiKey,
    { revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
    { fields: ['secretHash'], orderBy: { createdAt: 'desc' }, limit },
  );
  return keys.map((key) => key.secretHash);
}
