import type { FieldError } from './domain-error.ts';
import { Exact, fromParts, type ExactInput } from './numbers/index.ts';
import { fractionDigits, magnitudeAtLeast, readClientDecimal } from './numbers/decimal-text.ts';

/** Already the written form (canonical, ≤ 6 fractional digits): most values leaving the service are. */
const WRITTEN = /^(?:0|-?[1-9]\d*)(?:\.\d{0,5}[1-9])?$|^-0\.\d{0,5}[1-9]$/;

/**
 * The written form of a quantity or amount: exact, rounded half-up to 6 fractional digits only
 * here, when it leaves the service (GraphQL Decimal, REST numbers, metafield documents).
 */
export function toDecimalString(value: ExactInput): string {
  if (typeof value === 'string' && WRITTEN.test(value)) return value;
  return Exact.from(value).toDecimalPlaces(6).toFixed();
}

/**
 * Checks a client-supplied decimal (string or number text): finite, at most 6 fractional digits,
 * |x| < 10^14, ≥ 0 when `nonNegative`, > 0 when `positive`. Pushes a field error and returns null
 * when it is not; a value out of range is told the whole range allowed.
 */
export function parseDecimalInput(value: string, field: string, errors: FieldError[], options: { nonNegative?: boolean; positive?: boolean } = {}): Exact | null {
  const reading = readClientDecimal(value);
  if (reading === null) {
    errors.push({ field, message: 'must be a number' });
    return null;
  }
  // Judged on the parts, so "1e999999" is refused without being built.
  if (!reading.finite || fractionDigits(reading.parts) > 6) errors.push({ field, message: 'must be a number with at most 6 fractional digits' });
  else if (options.positive && (reading.parts.negative || reading.parts.digits === '' || magnitudeAtLeast(reading.parts, 14))) {
    errors.push({ field, message: 'must be greater than 0 and less than 10^14' });
  } else if (options.nonNegative && (reading.parts.negative || magnitudeAtLeast(reading.parts, 14))) errors.push({ field, message: 'must be between 0 and 10^14' });
  else if (magnitudeAtLeast(reading.parts, 14)) errors.push({ field, message: 'must be smaller than 10^14 in magnitude' });
  else return fromParts(reading.parts);
  return null;
}
