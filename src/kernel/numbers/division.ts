import { Exact, pow10, type ExactInput } from './exact.ts';

// Division of exact decimals. A quotient of decimals is a rational number that usually has no
// finite decimal form, so nothing here returns an unrounded quotient: the integer quotients the
// buildable solver needs (floor/ceil) are exact, and any other quotient is rounded once, to a stated
// number of places, directly from the integers (never by rounding an already-rounded estimate).

/** a / b as a fraction of two integers num / den with den > 0. */
function fraction(dividend: ExactInput, divisor: ExactInput): { num: bigint; den: bigint } {
  const a = Exact.from(dividend);
  const b = Exact.from(divisor);
  if (b.n === 0n) throw new RangeError('division by zero');
  // a.n/10^a.s ÷ b.n/10^b.s = (a.n × 10^b.s) / (b.n × 10^a.s)
  const num = a.n * pow10(b.scale);
  const den = b.n * pow10(a.scale);
  return den < 0n ? { num: -num, den: -den } : { num, den };
}

/** Largest integer q with q ≤ a / b (b ≠ 0), exact: "3 / 0.3" is 10. */
export function floorDiv(dividend: ExactInput, divisor: ExactInput): Exact {
  const { num, den } = fraction(dividend, divisor);
  const q = num / den; // BigInt division truncates toward zero
  return Exact.of(num < 0n && q * den !== num ? q - 1n : q);
}

/** Smallest integer q with q ≥ a / b (b ≠ 0), exact. */
export function ceilDiv(dividend: ExactInput, divisor: ExactInput): Exact {
  const { num, den } = fraction(dividend, divisor);
  const q = num / den;
  return Exact.of(num > 0n && q * den !== num ? q + 1n : q);
}

/**
 * a / b rounded half away from zero to `places` fractional digits (the rounding of every written
 * decimal), computed from the exact fraction: correctly rounded, e.g. for an average.
 */
export function divideToPlaces(dividend: ExactInput, divisor: ExactInput, places: number): Exact {
  const { num, den } = fraction(dividend, divisor);
  const scaled = num * pow10(places);
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  let q = magnitude / den;
  if ((magnitude - q * den) * 2n >= den) q += 1n;
  return Exact.of(negative ? -q : q, places);
}
