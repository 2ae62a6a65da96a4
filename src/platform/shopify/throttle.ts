/**
 * Shopify's Admin GraphQL limit is a leaky bucket of query cost per app and store: every answer
 * carries `extensions.cost.throttleStatus` (`maximumAvailable`, `currentlyAvailable`,
 * `restoreRate` per second). The pacer keeps the last status per store, extrapolates the refill,
 * and holds a request back until its expected cost is available, so bomcore rarely meets
 * `THROTTLED` at all; when it does, it waits the restore time the answer implies. Buckets are per
 * store, as Shopify's are: one shop's sync never waits for another's.
 */
export interface ThrottleStatus { maximumAvailable: number; currentlyAvailable: number; restoreRate: number }

export interface ThrottleSnapshot extends ThrottleStatus {
  /** When the status was last read from an answer. */
  observedAt: Date;
  /** Requests answered THROTTLED since the process started. */
  throttledCount: number;
}

interface Bucket { status: ThrottleStatus; observedAtMs: number; throttledCount: number }

/** Shopify's documented defaults for a standard plan, used until the first answer says otherwise. */
const DEFAULT_STATUS: ThrottleStatus = { maximumAvailable: 2000, currentlyAvailable: 2000, restoreRate: 100 };

export class CostPacer {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Milliseconds to wait before a request of `expectedCost` to `store` (0 when it fits now). */
  delayFor(store: string, expectedCost: number): number {
    const bucket = this.#buckets.get(store);
    if (!bucket) return 0;
    const { maximumAvailable, restoreRate } = bucket.status;
    const need = Math.min(expectedCost, maximumAvailable);
    const available = this.#available(bucket);
    if (available >= need || restoreRate <= 0) return 0;
    return Math.ceil(((need - available) / restoreRate) * 1000);
  }

  /** Records the status an answer carried; `cost` is what the request spent (subtracted if the status predates it). */
  observe(store: string, status: ThrottleStatus): void {
    const previous = this.#buckets.get(store);
    this.#buckets.set(store, { status: { ...status }, observedAtMs: this.#now(), throttledCount: previous?.throttledCount ?? 0 });
  }

  /** A THROTTLED answer: records it and returns the wait until `requestedCost` is restored. */
  throttled(store: string, status: ThrottleStatus | null, requestedCost: number): number {
    this.observe(store, status ?? this.#buckets.get(store)?.status ?? { ...DEFAULT_STATUS, currentlyAvailable: 0 });
    const bucket = this.#buckets.get(store)!;
    bucket.throttledCount += 1;
    const { restoreRate, currentlyAvailable, maximumAvailable } = bucket.status;
    const need = Math.min(Math.max(requestedCost, 1), maximumAvailable) - currentlyAvailable;
    return restoreRate > 0 ? Math.max(1000, Math.ceil((need / restoreRate) * 1000)) : 1000;
  }

  /** The store's bucket as last seen, refill extrapolated to now; null before its first answer. */
  snapshot(store: string): ThrottleSnapshot | null {
    const bucket = this.#buckets.get(store);
    if (!bucket) return null;
    return { ...bucket.status, currentlyAvailable: Math.floor(this.#available(bucket)), observedAt: new Date(bucket.observedAtMs), throttledCount: bucket.throttledCount };
  }

  #available(bucket: Bucket): number {
    const elapsedS = Math.max(0, this.#now() - bucket.observedAtMs) / 1000;
    return Math.min(bucket.status.maximumAvailable, bucket.status.currentlyAvailable + elapsedS * bucket.status.restoreRate);
  }
}
