// Progress of long CLI work (load, export, generate) on stderr: a bar redrawn in place on a
// terminal, plain lines every few seconds elsewhere (CI, a pipe, a file). No dependency.

/** What the reporter writes to: process.stderr, or a test's fake. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  stream?: ProgressStream;
  /** Draw a bar (default: the stream is a TTY, CI is not set, TERM is not dumb). */
  interactive?: boolean;
  /** Plain mode: least time between two lines of one phase, in ms (default 2000; first and last always shown). */
  plainIntervalMs?: number;
  /** Bar mode: least time between two redraws, in ms (default 100). */
  redrawMs?: number;
  now?: () => number;
  env?: NodeJS.ProcessEnv;
}

/** A terminal a person watches, or not: stderr a TTY, `CI` unset (or false/0), TERM not `dumb`. */
export function isInteractive(stream: ProgressStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && !['0', 'false'].includes(env.CI.toLowerCase());
  return stream.isTTY === true && !ci && env.TERM !== 'dumb';
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const amount = (n: number, unit: string) => (unit === 'MiB' ? decimal.format(n) : integer.format(n));

/** `12,000 / 100,000 rows (12%)` */
export function formatCount(done: number, total: number, unit: string): string {
  const percent = total > 0 ? Math.floor((Math.min(done, total) / total) * 100) : 100;
  return `${amount(done, unit)} / ${amount(total, unit)}${unit ? ` ${unit}` : ''} (${percent}%)`;
}

/** Verb of a task, as a line starts (`load` → `loading`). */
const VERBS: Record<string, string> = { load: 'loading', validate: 'validating', generate: 'generating', export: 'exporting', sync: 'syncing', plan: 'planning' };
const UNITS: Record<string, string> = { load: 'rows', generate: 'items' };

/**
 * Reports one command's progress. `update` for counted work (a bar or a line with the
 * percentage), `step` for a phase with no count (a ticking elapsed time on a terminal), `line`
 * for a message that stays (the bar is cleared first and redrawn after).
 */
export class Progress {
  private readonly stream: ProgressStream;
  private readonly interactive: boolean;
  private readonly plainIntervalMs: number;
  private readonly redrawMs: number;
  private readonly now: () => number;
  private readonly lastPlain = new Map<string, number>();
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = '';
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(options: ProgressOptions = {}) {
    this.stream = options.stream ?? process.stderr;
    this.interactive = options.interactive ?? isInteractive(this.stream, options.env);
    this.plainIntervalMs = options.plainIntervalMs ?? 2000;
    this.redrawMs = options.redrawMs ?? 100;
    this.now = options.now ?? Date.now;
  }

  /** Counted work: `task` (load, validate, generate…), `phase` (a section), done of total in `unit`. */
  update(task: string, phase: string, done: number, total: number, unit = UNITS[task] ?? ''): void {
    this.stopTicker();
    const head = `${VERBS[task] ?? task}${phase ? ` ${phase}` : ''}`;
    const finished = done >= total;
    if (!this.interactive) {
      const key = `${task}\u0000${phase}`;
      const last = this.lastPlain.get(key);
      const now = this.now();
      if (last === undefined || finished || now - last >= this.plainIntervalMs) {
        if (last === -1) return; // this phase already reported its end
        this.stream.write(`${head}: ${formatCount(done, total, unit)}\n`);
        this.lastPlain.set(key, finished ? -1 : now);
      }
      return;
    }
    const now = this.now();
    if (!finished && now - this.lastDraw < this.redrawMs) return;
    this.lastDraw = now;
    const count = formatCount(done, total, unit);
    const width = Math.max(10, Math.min(40, (this.stream.columns || 80) - head.length - count.length - 6));
    const filled = total > 0 ? Math.round((Math.min(done, total) / total) * width) : width;
    this.draw(`${head} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${count}`);
  }

  /** A phase with no count (`exporting: reading shop demo`): a line, or on a terminal a ticking elapsed time. */
  step(task: string, what: string): void {
    this.stopTicker();
    const head = `${VERBS[task] ?? task}: ${what}`;
    if (!this.interactive) {
      this.stream.write(`${head}\n`);
      return;
    }
    const started = this.now();
    const tick = () => this.draw(`${head} … ${Math.floor((this.now() - started) / 1000)} s`);
    tick();
    this.ticker = setInterval(tick, 500);
    this.ticker.unref?.();
  }

  /** A message that stays on screen. */
  line(text: string): void {
    const bar = this.drawn;
    this.clear();
    this.stream.write(`${text}\n`);
    if (bar && this.ticker === null) this.draw(bar);
  }

  /**
   * A message of the dataset modules: `load: materials 1200/5000`, `validate: boms 1.2/5.0 MiB`
   * become updates; anything else is a line.
   */
  message(text: string): void {
    const counted = /^(\w+): (.*?) ?(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)( MiB)?$/.exec(text);
    if (!counted) return this.line(text);
    const [, task, phase, done, total, mib] = counted;
    this.update(task!, phase!, Number(done), Number(total), mib ? 'MiB' : undefined);
  }

  /** Clears the bar (call before the command's last lines, and when it ends). */
  finish(): void {
    this.stopTicker();
    this.clear();
  }

  private draw(text: string): void {
    this.stream.write(`\r\x1b[2K${text}`);
    this.drawn = text;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[2K');
    this.drawn = '';
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }
}
