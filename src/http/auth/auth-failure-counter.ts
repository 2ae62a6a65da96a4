/** Length of a failure window: it opens with an address's first failure. */
export const WINDOW_MS = 60_000;
/** Addresses tracked at most; beyond, windows that ended are swept (and, if still full, the oldest dropped). */
const MAX_TRACKED = 50_000;

/** One counted authentication attempt. */
export interface CountedAttempt {
  /** 0 when the attempt was counted and may go on; else the seconds left of the address's window (nothing counted). */
  retryAfterSeconds: number;
  /** Takes the attempt's count back (its key proved valid, or the lookup could not decide). */
  undo(): Promise<void>;
}

/**
 * Failed authentications per client address in a window of WINDOW_MS. An attempt is counted as a
 * failure when it starts, before its key is looked up, so a burst of concurrent guesses meets the
 * limit as it arrives rather than after the answers; an attempt that proves valid is taken back.
 */
export interface FailureCounter {
  /** Counts an attempt of `address`, unless `address` already has `limit` failures in its window. */
  begin(address: string): Promise<CountedAttempt>;
}

const NOTHING_TO_UNDO = async (): Promise<void> => {};

/** The counter in process memory (one per instance). */
export class MemoryFailureCounter implements FailureCounter {
  readonly #limit: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; failures: number }>();

  constructor(limit: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  #window(address: string): { start: number; failures: number } | undefined {
    const window = this.#windows.get(address);
    if (window && this.#now() - window.start >= WINDOW_MS) {
      this.#windows.delete(address);
      return undefined;
    }
    return window;
  }

  /** Synchronous, so concurrent attempts are counted in arrival order. */
  beginNow(address: string): CountedAttempt {
    let window = this.#window(address);
    if (window && window.failures >= this.#limit) {
      return { retryAfterSeconds: Math.max(1, Math.ceil((window.start + WINDOW_MS - this.#now()) / 1000)), undo: NOTHING_TO_UNDO };
    }
    if (!window) {
      if (this.#windows.size >= MAX_TRACKED) this.#sweep();
      window = { start: this.#now(), failures: 0 };
      this.#windows.set(address, window);
    }
    window.failures++;
    const counted = window;
    return {
      retryAfterSeconds: 0,
      undo: async () => {
        // Only within the window that counted it (a later window owes this attempt nothing).
        if (this.#windows.get(address) !== counted || counted.failures === 0) return;
        counted.failures--;
        if (counted.failures === 0) this.#windows.delete(address);
      },
    };
  }

  async begin(address: string): Promise<CountedAttempt> {
    return this.beginNow(address);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [address, window] of this.#windows) if (now - window.start >= WINDOW_MS) this.#windows.delete(address);
    // Still full: the oldest windows go (a Map iterates in insertion order).
    for (const address of this.#windows.keys()) {
      if (this.#windows.size < MAX_TRACKED) break;
      this.#windows.delete(address);
    }
  }
}
