import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command used wrongly (exit code 2, with a hint to its --help). */
export class UsageError extends Error {}

/** A command that could not do its work, in one sentence (exit code 1, no stack). */
export class CommandError extends Error {}

/**
 * Node's parseArgs errors in a sentence (`Unknown option '--foo'. To specify a positional argument
 * starting with a '-', place it at the end…` → `unknown option --foo`).
 */
function usageMessage(error: Error & { code?: string }, options: NonNullable<ParseArgsConfig['options']>): string {
  const quoted = /'(-[^']*)'/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const name = quoted ?? error.message;
      const known = Object.keys(options).map((o) => `--${o}`);
      return known.length ? `unknown option ${name} (options: ${known.join(', ')})` : `unknown option ${name}: this command takes no options`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = /--[\w-]+/.exec(error.message)?.[0] ?? quoted;
      return name && options[name.slice(2)]?.type === 'boolean' ? `${name} takes no value` : `${name ?? 'an option'} needs a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const value = /'([^']*)'/.exec(error.message)?.[1];
      return `unexpected argument${value ? ` "${value}"` : ''}: this command takes none`;
    }
    default:
      return error.message;
  }
}

/**
 * `--materials -5` as `--materials=-5`: parseArgs takes a value starting with a dash for an option,
 * and would say "--materials needs a value"; the option's own check says what is wrong with -5.
 */
function joinNegativeValues(args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg === '--') return [...joined, ...args.slice(i)];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** parseArgs with strict options; its errors become usage errors (exit code 2). `--help` is handled before (main.ts). */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, positionals = 0) {
  try {
    const parsed = parseArgs({ args: joinNegativeValues(args, options), options, allowPositionals: positionals > 0, strict: true });
    if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(usageMessage(error as Error & { code?: string }, options));
  }
}

export function requiredString(value: string | boolean | undefined, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** An integer option of at least `min` (0 or 1), said as "a non-negative integer" or "a positive integer". */
function integerAtLeast(min: 0 | 1, value: string | boolean | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${flag} must be a ${min === 1 ? 'positive' : 'non-negative'} integer${typeof value === 'string' ? `, not "${value}"` : ''}`);
  }
  return n;
}

export const nonNegativeInt = (value: string | boolean | undefined, flag: string, fallback: number) => integerAtLeast(0, value, flag, fallback);
export const positiveInt = (value: string | boolean | undefined, flag: string, fallback: number) => integerAtLeast(1, value, flag, fallback);
