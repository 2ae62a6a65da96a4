import fc from 'fast-check';
import { Decimal as BaseDecimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { parseDecimalInput, toDecimalString } from '../../src/kernel/decimals.ts';
import type { FieldError } from '../../src/kernel/domain-error.ts';
import { ceilDiv, divideToPlaces, Exact, exact, floorDiv, ONE, ZERO } from '../../src/kernel/numbers/index.ts';

// src/kernel/numbers against independent references: the defining laws, BigInt integer arithmetic on
// scaled values, and decimal.js (the previous implementation) at a precision high enough to be exact.

const Decimal = BaseDecimal.clone({ precision: 1000, rounding: BaseDecimal.ROUND_HALF_UP });

const exactArb = fc.tuple(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.integer({ min: 0, max: 18 })).map(([n, s]) => Exact.of(n, s));
const nonZeroArb = exactArb.filter((x) => !x.isZero());
/** Quantities as stored: numeric(20,6). */
const storedArb = fc.tuple(fc.bigInt({ min: -(10n ** 20n) + 1n, max: 10n ** 20n - 1n }), fc.constant(6)).map(([n, s]) => Exact.of(n, s));

/** x × 10^S as an integer, read back from the printed text (an independent path to the value). */
function scaled(x: Exact, S: number): bigint {
  const [whole, fraction = ''] = x.toFixed().replace('-', '').split('.');
  const v = BigInt(whole! + fraction.padEnd(S, '0'));
  return x.isNegative() ? -v : v;
}
const ref = (x: Exact) => new Decimal(x.toFixed());
const CANONICAL = /^(?:0|-?[1-9]\d*(?:\.\d*[1-9])?|-?0\.\d*[1-9])$/;

describe('Exact: ring laws', () => {
  it('addition and multiplication are commutative and associative', () => {
    fc.assert(fc.property(exactArb, exactArb, exactArb, (a, b, c) => {
      expect(a.plus(b).eq(b.plus(a))).toBe(true);
      expect(a.times(b).eq(b.times(a))).toBe(true);
      expect(a.plus(b).plus(c).eq(a.plus(b.plus(c)))).toBe(true);
      expect(a.times(b).times(c).eq(a.times(b.times(c)))).toBe(true);
    }));
  });

  it('multiplication distributes over addition; 0 and 1 are identities; x − x = 0; x − y = x + (−y)', () => {
    fc.assert(fc.property(exactArb, exactArb, exactArb, (a, b, c) => {
      expect(a.times(b.plus(c)).eq(a.times(b).plus(a.times(c)))).toBe(true);
      expect(a.plus(ZERO).eq(a) && a.times(ONE).eq(a) && a.times(ZERO).isZero()).toBe(true);
      expect(a.minus(a).isZero()).toBe(true);
      expect(a.minus(b).eq(a.plus(b.negated()))).toBe(true);
    }));
  });

  it('sums and products equal decimal.js at 1,000 digits (exact for these sizes)', () => {
    fc.assert(fc.property(exactArb, exactArb, (a, b) => {
      expect(a.plus(b).toFixed()).toBe(ref(a).plus(ref(b)).toFixed());
      expect(a.minus(b).toFixed()).toBe(ref(a).minus(ref(b)).toFixed());
      expect(a.times(b).toFixed()).toBe(ref(a).times(ref(b)).toFixed());
    }));
  });

  it('values are normalised: equal values have equal fields, however they were built', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }), (n, s, k) => {
      const a = Exact.of(n, s);
      const b = Exact.of(n * 10n ** BigInt(k), s + k);
      expect(b).toEqual(a);
      expect(a.n === 0n || a.scale === 0 || a.n % 10n !== 0n).toBe(true);
    }));
  });

  it('pow(k) is k repeated products; divPow10(k) moves the point', () => {
    fc.assert(fc.property(exactArb, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 12 }), (a, k, p) => {
      expect(a.pow(k).eq(Array.from({ length: k }, () => a).reduce((x, y) => x.times(y), ONE))).toBe(true);
      expect(a.divPow10(p).times(10n ** BigInt(p)).eq(a)).toBe(true);
    }));
  });
});

describe('Exact: comparison', () => {
  it('cmp is the sign of the difference, antisymmetric, and agrees with eq/lt/lte/gt/gte', () => {
    fc.assert(fc.property(exactArb, exactArb, (a, b) => {
      const c = a.cmp(b);
      const d = a.minus(b);
      expect(c).toBe(d.isZero() ? 0 : d.isNegative() ? -1 : 1);
      expect(b.cmp(a)).toBe(c === 0 ? 0 : -c); // not -c: -0 is not 0 to toBe
      expect([a.eq(b), a.lt(b), a.lte(b), a.gt(b), a.gte(b)]).toEqual([c === 0, c < 0, c <= 0, c > 0, c >= 0]);
      expect(Exact.max(a, b).eq(c >= 0 ? a : b) && Exact.min(a, b).eq(c <= 0 ? a : b)).toBe(true);
    }));
  });

  it('ordering matches decimal.js on values of different scales and signs', () => {
    fc.assert(fc.property(exactArb, exactArb, (a, b) => {
      expect(a.cmp(b)).toBe(ref(a).comparedTo(ref(b)));
    }));
  });
});

describe('Exact: floor, ceil and integer division', () => {
  it('floor(x) ≤ x < floor(x) + 1 and ceil(x) − 1 < x ≤ ceil(x), both integers; floor(−x) = −ceil(x)', () => {
    fc.assert(fc.property(exactArb, (x) => {
      const f = x.floor();
      const c = x.ceil();
      expect(f.isInteger() && c.isInteger()).toBe(true);
      expect(f.lte(x) && x.lt(f.plus(1))).toBe(true);
      expect(c.minus(1).lt(x) && x.lte(c)).toBe(true);
      expect(x.negated().floor().eq(c.negated())).toBe(true);
    }));
  });

  it('floorDiv and ceilDiv equal the BigInt quotient of the values scaled to a common integer base', () => {
    fc.assert(fc.property(exactArb, nonZeroArb, (a, b) => {
      const S = Math.max(a.scale, b.scale);
      const A = scaled(a, S);
      const B = scaled(b, S);
      const t = A / B;
      const inexact = t * B !== A;
      const floorRef = inexact && (A < 0n) !== (B < 0n) ? t - 1n : t;
      const ceilRef = inexact && (A < 0n) === (B < 0n) ? t + 1n : t;
      expect(floorDiv(a, b).toFixed()).toBe(floorRef.toString());
      expect(ceilDiv(a, b).toFixed()).toBe(ceilRef.toString());
    }));
  });

  it('floorDiv is the largest q with q × b ≤ a (b > 0): 3 / 0.3 is exactly 10', () => {
    fc.assert(fc.property(exactArb, nonZeroArb.map((b) => b.abs()), (a, b) => {
      const q = floorDiv(a, b);
      expect(q.times(b).lte(a) && q.plus(1).times(b).gt(a)).toBe(true);
    }));
    expect(floorDiv('3', '0.3').toFixed()).toBe('10');
    expect(ceilDiv('3', '0.3').toFixed()).toBe('10');
    expect(() => floorDiv(1, 0)).toThrow(RangeError);
  });

  it('divideToPlaces is the quotient correctly rounded half away from zero (decimal.js at 1,000 digits)', () => {
    fc.assert(fc.property(storedArb, storedArb.filter((b) => !b.isZero()), fc.integer({ min: 0, max: 8 }), (a, b, places) => {
      expect(divideToPlaces(a, b, places).toFixed()).toBe(ref(a).div(ref(b)).toDecimalPlaces(places).toFixed());
    }));
    expect(divideToPlaces('2', '3', 6).toFixed()).toBe('0.666667');
    expect(divideToPlaces('-1', '8', 2).toFixed()).toBe('-0.13');
  });
});

describe('Exact: rounding half-up to 6 places', () => {
  it('toDecimalPlaces(6) rounds half away from zero like decimal.js ROUND_HALF_UP, negatives included', () => {
    fc.assert(fc.property(exactArb, fc.integer({ min: 0, max: 10 }), (x, places) => {
      expect(x.toDecimalPlaces(places).toFixed()).toBe(ref(x).toDecimalPlaces(places, BaseDecimal.ROUND_HALF_UP).toFixed());
    }));
    const six = (s: string) => exact(s).toDecimalPlaces(6).toFixed();
    expect([six('0.0000005'), six('-0.0000005'), six('-0.0000004'), six('2.4999995'), six('-2.4999994999')]).toEqual(['0.000001', '-0.000001', '0', '2.5', '-2.499999']);
  });

  it('toDecimalString gives the same text as decimal.js for Exact values and their texts (written-form fast path included)', () => {
    fc.assert(fc.property(exactArb, (x) => {
      const expected = new BaseDecimal(x.toFixed()).toDecimalPlaces(6, BaseDecimal.ROUND_HALF_UP).toFixed();
      expect(toDecimalString(x)).toBe(expected);
      expect(toDecimalString(x.toFixed())).toBe(expected);
      expect(toDecimalString(x.toFixed())).toMatch(CANONICAL);
    }));
    expect([toDecimalString('0.400000'), toDecimalString('-0'), toDecimalString(-0), toDecimalString(0.1), toDecimalString('1e-7'), toDecimalString(1e21)])
      .toEqual(['0.4', '0', '0', '0.1', '0', '1000000000000000000000']);
  });
});

// Decimal text: sign, digits, optional point and fraction, optional exponent, as PostgreSQL, JSON and clients write it.
const digits = (max: number) => fc.stringMatching(new RegExp(`^[0-9]{0,${max}}$`));
const textArb = fc.tuple(fc.constantFrom('', '-', '+'), digits(16), fc.option(digits(12)), fc.option(fc.integer({ min: -30, max: 30 })), fc.boolean())
  .filter(([, whole, fraction]) => whole !== '' || (fraction ?? '') !== '')
  .map(([sign, whole, fraction, exponent, upper]) => `${sign}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `${upper ? 'E' : 'e'}${exponent}`}`);

describe('Exact: parsing and printing', () => {
  it('reads decimal text (signs, leading/trailing zeros, "5.", ".5", exponents) to the value decimal.js reads', () => {
    fc.assert(fc.property(textArb, (text) => {
      expect(exact(text).toFixed()).toBe(new Decimal(text).toFixed());
    }));
  });

  it('prints canonically (no exponent, no trailing zeros, no negative zero) and reads its own text back', () => {
    fc.assert(fc.property(exactArb, (x) => {
      expect(x.toFixed()).toMatch(CANONICAL);
      expect(exact(x.toFixed())).toEqual(x);
      expect(x.toString()).toBe(x.toFixed());
      expect(JSON.stringify({ x })).toBe(`{"x":"${x.toFixed()}"}`);
    }));
    expect([exact('0.400000').toFixed(), exact('-0.000').toFixed(), exact('-3e-1').toFixed(), exact('2.50').toFixed(), exact('1e-7').toFixed()])
      .toEqual(['0.4', '0', '-0.3', '2.5', '0.0000001']);
  });

  it('JS numbers are read through their shortest text (0.1 is 0.1), and toNumber is the nearest double', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
      expect(exact(d).toNumber()).toBe(d === 0 ? 0 : d);
    }));
    expect(exact(0.1).toFixed()).toBe('0.1');
    expect(() => exact(Number.NaN)).toThrow(RangeError);
  });

  it('refuses text that is not a decimal number', () => {
    for (const bad of ['', '-', '.', 'e5', '1e', '1.2.3', ' 1', '1 ', '--1', '0x10', 'Infinity', '1,5']) expect(() => exact(bad), bad).toThrow();
  });
});

/** The previous decimal.js implementation, kept as the reference for client input checks. */
function previousParse(value: string, options: { nonNegative?: boolean }): string {
  let d: BaseDecimal;
  try {
    d = new BaseDecimal(value);
  } catch {
    return 'must be a number';
  }
  if (!d.isFinite() || d.decimalPlaces() > 6) return 'must be a number with at most 6 fractional digits';
  if (options.nonNegative && (d.isNegative() || d.gte('1e14'))) return 'must be between 0 and 10^14';
  if (d.abs().gte('1e14')) return 'must be smaller than 10^14 in magnitude';
  return `ok ${d.toFixed()}`;
}
function currentParse(value: string, options: { nonNegative?: boolean }): string {
  const errors: FieldError[] = [];
  const parsed = parseDecimalInput(value, 'f', errors, options);
  return parsed ? `ok ${parsed.toFixed()}` : errors[0]!.message;
}

const clientTextArb = fc.oneof(
  textArb,
  fc.tuple(fc.constantFrom('', '-', '+'), fc.constantFrom('0x', '0X', '0b', '0o'), fc.stringMatching(/^[0-9a-fA-F]{0,6}(\.[0-9a-fA-F]{0,4})?$/), fc.option(fc.integer({ min: -40, max: 60 })))
    .map(([sign, prefix, body, p]) => `${sign}${prefix}${body}${p === null ? '' : `p${p}`}`),
  fc.constantFrom('Infinity', '-Infinity', 'NaN', '-0', '-0.000', '1_000.5', '1__0', '_1', '1e99999999999999999999', '1e-99999999999999999999',
    '-1e-9000000000000001', '99999999999999.999999', '100000000000000', '0.0000001', '1e-6', '1.5e2', 'abc', '', '0x1p-3', '0x1.8p1', '0b101.1'),
  fc.string({ maxLength: 8 }),
);

describe('parseDecimalInput: the same verdict and value as the decimal.js version it replaced', () => {
  it('decimal text, exponents, hexadecimal/binary/octal literals, underscores, Infinity/NaN, negative zero and junk', () => {
    fc.assert(fc.property(clientTextArb, fc.boolean(), (text, nonNegative) => {
      expect(currentParse(text, { nonNegative })).toBe(previousParse(text, { nonNegative }));
    }), { numRuns: 3000 });
  });
});
