// The loop shared by bomcore's background workers (the platform-push outbox drainer, the bill
// version filler): run a pass, then wait `intervalMs` — or go again at once when the pass says more
// work is due — until stopped. A failed pass is reported and the loop goes on; the work it did not
// do stays in the database for the next pass.

export interface PeriodicPassOptions<T> {
  /** One pass of work. */
  pass: () => Promise<T>;
  /** What a pass asked for after `stop` resolves to (nothing done). */
  stoppedResult: T;
  /** Pause between passes; 0 = no timer (passes only through `runOnce`). */
  intervalMs: number;
  /** Delay of the first timed pass. */
  firstDelayMs: number;
  /** Whether more work is due at once after this result (e.g. a full batch was done). */
  backlog: (result: T) => boolean;
  /** A pass threw: report it (the loop continues after `intervalMs`). */
  onError: (error: unknown) => void;
}

export interface PeriodicPass<T> {
  /** One pass now (also while the timer runs); resolves `stoppedResult` once stopped. */
  runOnce(): Promise<T>;
  /** Stops the timer and waits for every pass in flight. */
  stop(): Promise<void>;
}

export function startPeriodicPass<T>(options: PeriodicPassOptions<T>): PeriodicPass<T> {
  const { pass, stoppedResult, intervalMs, backlog, onError } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const inFlight = new Set<Promise<T>>();

  function runOnce(): Promise<T> {
    if (stopped) return Promise.resolve(stoppedResult);
    const running = pass();
    inFlight.add(running);
    const forget = () => inFlight.delete(running);
    running.then(forget, forget);
    return running;
  }

  function schedule(delayMs: number): void {
    if (stopped || intervalMs <= 0) return;
    timer = setTimeout(() => void tick(), delayMs);
    timer.unref();
  }

  async function tick(): Promise<void> {
    timer = null;
    let again = false;
    try {
      again = backlog(await runOnce());
    } catch (error) {
      onError(error);
    }
    schedule(again ? 0 : intervalMs);
  }

  schedule(options.firstDelayMs);
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.allSettled([...inFlight]);
    },
  };
}
