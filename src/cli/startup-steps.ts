// What `serve` is doing while it starts: one line per step, with its time, so a first start (a new
// embedded database, its migrations, the demo shop) is not seconds of silence. Each line is
// started when its step starts (`start-up: applying migrations… `) and ended with what the step
// found and how long it took (`12 applied, 1.4 s`).

export interface StepSink { write(text: string): unknown }

export class StartupSteps {
  readonly #out: StepSink;
  readonly #now: () => number;

  constructor(out: StepSink = process.stdout, now: () => number = () => performance.now()) {
    this.#out = out;
    this.#now = now;
  }

  /**
   * Runs `work` as the step `label`; `found` says what it found (shown before the time). A step
   * whose work writes log lines of its own (`logs`) is written whole when it ends, after them, so
   * no log line lands in the middle of it.
   */
  async run<T>(label: string, work: () => Promise<T>, found?: (result: T) => string | null, options: { logs?: boolean } = {}): Promise<T> {
    const started = this.#now();
    if (!options.logs) this.#out.write(`start-up: ${label}… `);
    const result = await work();
    const seconds = ((this.#now() - started) / 1000).toFixed(1);
    const what = found?.(result);
    this.#out.write(`${options.logs ? `start-up: ${label}… ` : ''}${what ? `${what}, ` : ''}${seconds} s\n`);
    return result;
  }
}

/** `12 applied` / `up to date`. */
export const migrationsFound = (applied: string[]) => (applied.length ? `${applied.length} applied` : 'up to date');
