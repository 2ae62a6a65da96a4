import { Decimal } from 'decimal.js';
import type { JsonReviverContext } from '../kernel/numbers/json-numbers.ts';
import type { DecimalString } from './types.ts';

// JSON numbers are read from their source text, never through a binary float, so `0.1` stays
// exactly 0.1 and a value with too many digits is refused instead of silently rounded.

export const MAX_FRACTION_DIGITS = 6;
/** Integer digits a stored quantity may carry: what fits the numeric(20, 6) columns (src/db/columns.ts). */
export const MAX_INTEGER_DIGITS = 14;
const INTEGER_LIMIT = new Decimal(10).pow(MAX_INTEGER_DIGITS);

/** A JSON number as written in the file; produced by {@link exactNumberReviver}. */
export class ExactNumber {
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }
}

/**
 * `JSON.parse` reviver (Node ≥ 21 passes the source text of primitives as a third argument)
 * that wraps every number in an {@link ExactNumber}. The API reads and writes numbers the same
 * way (src/kernel/numbers/json-numbers.ts).
 */
export function exactNumberReviver(_key: string, value: unknown, context?: JsonReviverContext): unknown {
  if (typeof value === 'number') {
    return new ExactNumber(context?.source ?? String(value));
  }
  return value;
}

export type DecimalReading = { ok: true; value: Decimal } | { ok: false; message: string };

/** Reads a JSON number (exact source or an already-parsed JS number) as an exact decimal. */
export function readDecimal(input: ExactNumber | number): DecimalReading {
  // String(n) of a JS number is the shortest text that round-trips, i.e. what the author wrote
  // for any value that had a chance of being exact.
  const text = input instanceof ExactNumber ? input.source : String(input);
  if (typeof input === 'number' && !Number.isFinite(input)) {
    return { ok: false, message: `must be a finite number, got ${text}` };
  }
  let value: Decimal;
  try {
    value = new Decimal(text);
  } catch {
    return { ok: false, message: `must be a number, got ${text}` };
  }
  if (!value.isFinite()) return { ok: false, message: `must be a finite number, got ${text}` };
  if (value.decimalPlaces() > MAX_FRACTION_DIGITS) {
    return { ok: false, message: `has more than ${MAX_FRACTION_DIGITS} fractional digits: ${text}` };
  }
  if (value.abs().gte(INTEGER_LIMIT)) {
    return { ok: false, message: `is out of range (more than ${MAX_INTEGER_DIGITS} integer digits): ${text}` };
  }
  return { ok: true, value };
}

/** Canonical text of a decimal: no exponent, no trailing zeros, no negative zero. */
export function canonicalDecimal(value: Decimal): DecimalString {
  return value.isZero() ? '0' : value.toFixed();
}

export function isJsonNumber(value: unknown): value is ExactNumber | number {
  return value instanceof ExactNumber || typeof value === 'number';
}
