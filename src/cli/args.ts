import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

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

/** parseArgs with strict options; its errors become usage errors (exit code 2). `--help` is handled before (main.ts). */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, positionals = 0) {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true });
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

export function nonNegativeInt(value: string | boolean | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0`);
  return n;
}
