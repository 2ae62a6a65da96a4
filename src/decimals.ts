import { Decimal } from 'decimal.js';
import type { FieldError } from './domain-error.ts';

/**
 * The written form of a quantity or amount: exact, rounded half-up to 6 fractional digits only
 * here, when it leaves the service (GraphQL Decimal, REST numbers, metafield documents).
 */
export function toDecimalString(value: string | number | Decimal): string {
  return new Decimal(value).toDecimalPlaces(6, Decimal.ROUND_HALF_UP).toFixed();
}

/** numeric(20,6): at most 14 integer digits. */
const LIMIT = new Decimal('1e14');

/**
 * Checks a client-supplied decimal (string or number text): finite, at most 6 fractional digits,
 * |x| < 10^14, and ≥ 0 when `nonNegative`. Pushes a field error and returns null when it is not.
 */
export function parseDecimalInput(value: string, field: string, errors: FieldError[], options: { nonNegative?: boolean } = {}): Decimal | null {
  let d: Decimal;
  try {
    d = new Decimal(value);
  } catch {
    errors.push({ field, message: 'must be a number' });
    return null;
  }
  if (!d.isFinite() || d.decimalPlaces() > 6) errors.push({ field, message: 'must be a number with at most 6 fractional digits' });
  else if (options.nonNegative && (d.isNegative() || d.gte(LIMIT))) errors.push({ field, message: 'must be between 0 and 10^14' });
  else if (d.abs().gte(LIMIT)) errors.push({ field, message: 'must be smaller than 10^14 in magnitude' });
  else return d;
  return null;
}
