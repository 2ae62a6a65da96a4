// The leaky bucket of query cost points per app and store (https://shopify.dev/docs/api/usage/rate-limits):
// a maximum (2,000 on a standard plan) restored at a rate (100 points a second); a request whose
// cost the bucket cannot pay is answered THROTTLED and applies nothing. A REST-style limit answers
// 429 with Retry-After.
/** Shopify's per-app-per-shop leaky bucket of query cost points. */
export class CostBucket {
  maximumAvailable: number;
  restoreRate: number;
  private available: number;
  private at: number;

  constructor(maximumAvailable: number, restoreRate: number) {
    this.maximumAvailable = maximumAvailable;
    this.restoreRate = restoreRate;
    this.available = maximumAvailable;
    this.at = Date.now();
  }

  /** Points available now (restored at restoreRate per second since the last look, up to the maximum). */
  currentlyAvailable(): number {
    const now = Date.now();
    this.available = Math.min(this.maximumAvailable, this.available + ((now - this.at) / 1000) * this.restoreRate);
    this.at = now;
    return this.available;
  }

  /** Takes `cost` points when the bucket holds them; false (and nothing taken) otherwise. */
  take(cost: number): boolean {
    if (this.currentlyAvailable() < cost) return false;
    this.available -= cost;
    return true;
  }

  /** Gives back what was taken but not used (requested − actual). */
  refund(points: number): void {
    this.available = Math.min(this.maximumAvailable, this.currentlyAvailable() + points);
  }

  /** Sets the level directly (tests: an empty bucket). */
  set(points: number): void {
    this.currentlyAvailable();
    this.available = Math.max(0, Math.min(this.maximumAvailable, points));
  }

  status() {
    return { maximumAvailable: this.maximumAvailable, currentlyAvailable: Math.floor(this.currentlyAvailable()), restoreRate: this.restoreRate };
  }
}

/** Counted one-shot faults of one shop. */
export class Faults {
  failures: { remaining: number; status: 500 | 502 | 503 }[] = [];
  throttles: { remaining: number; kind: 429 | 'THROTTLED' }[] = [];
  timeoutsAfterApply = 0;
  droppedWebhooks = 0;

  takeFailure(): 500 | 502 | 503 | null {
    return take(this.failures)?.status ?? null;
  }

  takeThrottle(): 429 | 'THROTTLED' | null {
    return take(this.throttles)?.kind ?? null;
  }
}

function take<T extends { remaining: number }>(queue: T[]): T | null {
  const head = queue[0];
  if (!head) return null;
  head.remaining -= 1;
  if (head.remaining <= 0) queue.shift();
  return head;
}
