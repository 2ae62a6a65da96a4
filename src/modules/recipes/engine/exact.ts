import { Decimal } from 'decimal.js';

/**
 * Decimal constructor for recipe arithmetic. decimal.js rounds every result to `precision`
 * significant digits (20 by default); products of 6-decimal quantities along a deep recipe path need
 * far more, so the engine computes with 1,000 digits: exact for any realistic depth.
 */
export const Exact = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_HALF_UP });
export type Exact = Decimal;

/** For quotient estimates only (a 1,000-digit division is slow); results are corrected exactly. */
const Estimate = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_FLOOR });

export const ZERO = new Exact(0);
export const ONE = new Exact(1);
export const HUNDRED = new Exact(100);

export function exact(value: string | number | Decimal): Decimal {
  return new Exact(value);
}

/** Largest integer n with n × divisor ≤ dividend (divisor > 0), checked by multiplication so it is exact. */
export function floorDiv(dividend: Decimal, divisor: Decimal): Decimal {
  let n = new Exact(new Estimate(dividend).div(new Estimate(divisor)).floor());
  while (n.plus(1).times(divisor).lte(dividend)) n = n.plus(1);
  while (n.times(divisor).gt(dividend)) n = n.minus(1);
  return n;
}

/** Smallest integer n with n × divisor ≥ dividend (divisor > 0). */
export function ceilDiv(dividend: Decimal, divisor: Decimal): Decimal {
  let n = new Exact(new Estimate(dividend).div(new Estimate(divisor)).ceil());
  while (n.minus(1).times(divisor).gte(dividend)) n = n.minus(1);
  while (n.times(divisor).lt(dividend)) n = n.plus(1);
  return n;
}
