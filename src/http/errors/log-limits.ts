import { stdSerializers, type LoggerOptions } from 'pino';

/**
 * Logs that stay readable through an outage and never carry a client's megabyte:
 * - a failure logged at warn or above with an `err` is logged in full (stack included) the first
 *   time; repeats of the same kind (level, message, error name and code, first stack frame) within
 *   the window are left out and counted, and the first repeat after the window is one short line
 *   (no stack) with `repeats: { suppressed, windowSeconds }`;
 * - every string in a log line (messages, error messages and stacks, request bodies, GraphQL
 *   queries and variables) is cut at MAX_LOG_VALUE_CHARS with a note of its full length;
 * - anything shaped like an API key is replaced by `bck_[REDACTED]`, wherever it is in the line.
 */

/**
 * An API key's shape (src/modules/auth/keys.ts: `bck_` and base64url characters), also
 * percent-encoded: a key sent in a query string, as a GraphQL argument or `_entities` typename,
 * or quoted by an error message, never reaches the log. Partial keys are caught too.
 */
const KEY_SHAPE = /bck(?:_|%5[Ff])(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2})+/g;

export function redactKeys(line: string): string {
  return line.includes('bck') ? line.replace(KEY_SHAPE, 'bck_[REDACTED]') : line;
}

/** The longest string value a log line carries (stacks: twice that). */
export const MAX_LOG_VALUE_CHARS = 2048;
const MAX_STACK_CHARS = 2 * MAX_LOG_VALUE_CHARS;
/** Nesting and list length a log object is walked to (deeper or longer parts are summarised). */
const MAX_DEPTH = 6;
const MAX_ITEMS = 50;
/** Kinds of failure remembered at once; the oldest are forgotten beyond. */
const MAX_KINDS = 1000;

export function truncateForLog(value: string, max = MAX_LOG_VALUE_CHARS): string {
  return value.length <= max ? value : `${value.slice(0, max)}… [truncated, ${value.length} chars in all]`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** Copies plain objects and arrays with every string cut; anything else (an Error, a Date) is left to the serializers. */
export function truncateValues(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncateForLog(value);
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return `[array of ${value.length}]`;
    const items = value.slice(0, MAX_ITEMS).map((v) => truncateValues(v, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`… ${value.length - MAX_ITEMS} more items`);
    return items;
  }
  if (!isPlainObject(value)) return value;
  if (depth >= MAX_DEPTH) return '[object]';
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key of Object.keys(value)) {
    if (n++ >= MAX_ITEMS) {
      out['…'] = `${Object.keys(value).length - MAX_ITEMS} more keys`;
      break;
    }
    out[key] = truncateValues(value[key], depth + 1);
  }
  return out;
}

/** pino's error serializer, every string of it cut (a driver error's message can quote the whole statement and its values). */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return truncateValues(error);
  // pino's serialized error has a prototype of its own: copy its fields into a plain object to cut them.
  const serialized = stdSerializers.err(error) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(serialized).slice(0, MAX_ITEMS)) {
    const value = serialized[key];
    out[key] = key === 'stack' && typeof value === 'string' ? truncateForLog(value, MAX_STACK_CHARS) : truncateValues(value, 1);
  }
  return out;
}

/** Decides, per kind of failure, which occurrences are written. */
export class RepeatLimiter {
  private readonly kinds = new Map<string, { windowStart: number; suppressed: number }>();
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(windowSeconds: number, now: () => number = Date.now) {
    this.windowMs = windowSeconds * 1000;
    this.now = now;
  }

  /** `full`: first of its kind; `brief`: first after a window, with the count left out since; `drop`: within the window. */
  check(kind: string): { write: 'full' } | { write: 'brief'; suppressed: number } | { write: 'drop' } {
    const now = this.now();
    const entry = this.kinds.get(kind);
    if (!entry) {
      if (this.kinds.size >= MAX_KINDS) this.kinds.delete(this.kinds.keys().next().value as string);
      this.kinds.set(kind, { windowStart: now, suppressed: 0 });
      return { write: 'full' };
    }
    if (now - entry.windowStart < this.windowMs) {
      entry.suppressed++;
      return { write: 'drop' };
    }
    const suppressed = entry.suppressed;
    entry.windowStart = now;
    entry.suppressed = 0;
    return { write: 'brief', suppressed };
  }
}

/** Level, message, error name and code, and the first stack frame: one kind of failure. */
function kindOf(level: number, message: string, error: unknown): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; stack?: unknown };
  const frame = typeof e.stack === 'string' ? (e.stack.split('\n').find((l) => l.trimStart().startsWith('at ')) ?? '').trim() : '';
  return [level, message.slice(0, 200), String(e.name ?? ''), String(e.code ?? ''), frame].join('|');
}

function briefError(error: unknown): Record<string, unknown> {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as { name?: unknown; code?: unknown; message?: unknown };
  return {
    type: typeof e.name === 'string' ? e.name : 'Error',
    message: truncateForLog(String(e.message ?? '')),
    ...(e.code !== undefined ? { code: e.code } : {}),
  };
}

const WARN = 40;

/**
 * Options for the app's pino logger (`buildApp`): the repeat limiter as a `logMethod` hook, cut
 * strings as the `err` serializer and the `log` formatter.
 */
export function logOptions(options: { repeatWindowSeconds: number }): Pick<LoggerOptions, 'hooks' | 'serializers' | 'formatters'> {
  const limiter = new RepeatLimiter(options.repeatWindowSeconds);
  return {
    hooks: {
      logMethod(args, method, level) {
        const [first, second] = args as unknown[];
        const error = first instanceof Error ? first : isPlainObject(first) ? first.err : undefined;
        let out = args as unknown[];
        if (level >= WARN && error !== undefined) {
          const message = typeof second === 'string' ? second : first instanceof Error ? first.message : '';
          const decision = limiter.check(kindOf(level, message, error));
          if (decision.write === 'drop') return;
          if (decision.write === 'brief') {
            const base = isPlainObject(first) ? first : {};
            const repeats = { suppressed: decision.suppressed, windowSeconds: options.repeatWindowSeconds };
            out = [{ ...base, err: briefError(error), repeats }, ...(first instanceof Error ? [message] : out.slice(1))];
          }
        }
        out = out.map((a) => (typeof a === 'string' ? truncateForLog(a) : a));
        method.apply(this, out as Parameters<typeof method>);
      },
      // On the finished line: the request URL, messages, error strings and every field alike.
      streamWrite: redactKeys,
    },
    serializers: { err: serializeError },
    formatters: { log: (object) => truncateValues(object) as Record<string, unknown> },
  };
}
