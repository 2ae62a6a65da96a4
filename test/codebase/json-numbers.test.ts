import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDecimalString } from '../../src/kernel/decimals.ts';
import { Exact } from '../../src/kernel/numbers/index.ts';
import { isInexact, jsonNumber, mayHoldInexactNumbers, parseJsonExactly, restoreExactNumbers } from '../../src/kernel/numbers/json-numbers.ts';
import { decimalJson } from '../../rest-facade/schema-helpers.ts';

// JSON numbers exactly (src/kernel/numbers/json-numbers.ts): what the API writes is the decimal's
// text, and what it reads keeps the text of every number a double does not hold.

/** Values as stored: numeric(20,6), i.e. |x| < 10^14 with 6 fractional digits. */
const storedText = fc.bigInt({ min: -(10n ** 20n) + 1n, max: 10n ** 20n - 1n }).map((n) => Exact.of(n, 6).toFixed());
/** Around 10^14 and 0, where a double's rounding would cross the bounds of the request schemas. */
const nearBounds = fc.oneof(
  fc.bigInt({ min: 10n ** 20n - 10n ** 9n, max: 10n ** 20n + 10n ** 9n }).map((n) => Exact.of(n, 6).toFixed()),
  fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }).map((n) => Exact.of(n, 12).toFixed()),
);

describe('JSON numbers written from the exact decimal', () => {
  it('a stored value is written digit for digit, in its canonical form (2 is 2, 1.50 is 1.5, 0.000001 as is)', () => {
    fc.assert(fc.property(storedText, (text) => {
      expect(JSON.stringify({ v: decimalJson(text) })).toBe(`{"v":${toDecimalString(text)}}`);
    }));
    expect(JSON.stringify([decimalJson('2.000000'), decimalJson('1.50'), decimalJson('0.000001'), decimalJson('-0'), decimalJson('99999999999999.9999995')]))
      .toBe('[2,1.5,0.000001,0,100000000000000]');
    expect(JSON.stringify(jsonNumber('-99999999999999.999999'))).toBe('-99999999999999.999999');
  });
});

describe('JSON numbers read exactly', () => {
  it('a body number a double does not hold becomes its exact text once the schema accepted it; others stay numbers', () => {
    fc.assert(fc.property(fc.array(storedText, { minLength: 1, maxLength: 5 }), (texts) => {
      const source = `{"rows":[${texts.map((x) => `{"q":${x}}`).join(',')}]}`;
      const body = (mayHoldInexactNumbers(source) ? parseJsonExactly(source) : JSON.parse(source)) as { rows: { q: unknown }[] };
      restoreExactNumbers(body);
      body.rows.forEach((row, i) => {
        const value = row.q;
        expect(Exact.from(value as string | number).eq(texts[i]!)).toBe(true);
        expect(typeof value === 'string').toBe(isInexact(texts[i]!, Number(texts[i]!)));
      });
    }));
  });

  it('before that, the schema sees a double on the same side of 0 and 10^14 as the exact value (the next double towards zero)', () => {
    fc.assert(fc.property(nearBounds, (text) => {
      const { v } = parseJsonExactly(`{"v":${text}}`) as { v: number };
      const x = Exact.from(text);
      expect(v < 1e14, text).toBe(x.lt('100000000000000'));
      expect(v > -1e14, text).toBe(x.gt('-100000000000000'));
      expect(v >= 0 && !Object.is(v, -0), text).toBe(x.gte(0));
      expect(v > 0, text).toBe(x.gt(0));
    }));
    expect((parseJsonExactly('{"v":99999999999999.999999}') as { v: number }).v).toBeLessThan(1e14);
    expect((parseJsonExactly('{"v":100000000000000.000001}') as { v: number }).v).toBe(1e14);
  });

  it('the pre-check lets no inexact number through: 16+ significant digits or an exponent', () => {
    fc.assert(fc.property(storedText, (text) => {
      if (isInexact(text, Number(text))) expect(mayHoldInexactNumbers(`[${text}]`)).toBe(true);
    }));
    expect(mayHoldInexactNumbers('{"a":1e-400}')).toBe(true);
    expect(mayHoldInexactNumbers('{"a":123456789012.345,"b":"text"}')).toBe(false);
    expect(isInexact('-0', -0)).toBe(false);
    expect(isInexact('1.50', 1.5)).toBe(false);
    expect(isInexact('1e-400', 0)).toBe(true);
  });
});
