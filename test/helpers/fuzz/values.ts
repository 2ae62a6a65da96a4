import fc from 'fast-check';

/**
 * Values an attacker or a careless client sends: the building blocks of the fuzzers. Strings a
 * database cannot store (NUL), that break naive parsers or prototype handling, boundary lengths,
 * unicode of every width, and numbers JSON can spell but JavaScript loses (-0, 1e400, 30 digits).
 */
export const NASTY_STRINGS: readonly string[] = [
  '', ' ', '\u0000', 'a\u0000b', '%00', '\\u0000', '\u0001\u001f', '\t\r\n', '\uFEFF', '\u200B', '\u202E', '\uD800', '\uDFFF',
  '😀', '👩‍👩‍👧‍👦', 'é', 'e\u0301', 'ß', 'İ', 'ﬃ', '中文', '𝕏', '\u2028\u2029',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'null', 'undefined', 'NaN', 'true', '[]', '{}',
  "'", '"', '`', "' OR '1'='1", "'; drop table materials; --", '\\', '%', '%%', '%_', '_', '*', '?', '#', '&', '=', '+', '/', '..', '../..',
  '%2F', '%2e%2e', 'gid://shopify/Location/101', 'gid://x/Order/5001', '<script>alert(1)</script>', '${7*7}', '{{7*7}}',
  '-0', '0', '-1', '1e3', '1E-7', '0x10', '1_000', '9'.repeat(30), '1.0000001', 'Infinity', '-Infinity',
  '2026-02-30', '2026-13-01T00:00:00Z', '0000-00-00', '9999-12-31T23:59:59.999Z', '2026-11-02T10:00:00.000Z',
  'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(100), 'x'.repeat(101), 'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(200), 'x'.repeat(201),
  'x'.repeat(255), 'x'.repeat(256), 'é'.repeat(255), '😀'.repeat(200), 'x'.repeat(1000), 'x'.repeat(1001), 'x'.repeat(2000), 'x'.repeat(2001),
  'x'.repeat(2800), 'x'.repeat(10_000), 'x'.repeat(10_001), 'x'.repeat(100_000),
];

/** A string from the nasty list, a random unicode string, or a long one; occasionally with a NUL spliced in. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\u0000${b}`) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 6000 }).map((n) => 'y'.repeat(n)) },
);

/**
 * A number as raw JSON text, so a body can carry what JSON.stringify cannot spell: negative zero,
 * exponent notation, numbers beyond double range or precision.
 */
export class RawNumber {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

export const NASTY_NUMBER_TEXTS: readonly string[] = [
  '0', '-0', '-0.0', '0.0', '1', '-1', '0.1', '0.000001', '0.0000001', '1e-7', '1E6', '1e+2', '1.5e3', '-1e-300', '1e308', '1e400', '-1e400',
  '2147483647', '2147483648', '-2147483649', '9007199254740991', '9007199254740993', '123456789012345678901234567890', '99999999999999.999999',
  '1000000000000000000000.5', '0.123456789012345678901234567890', '5e-324', '1.7976931348623157e308',
];

/** A number, in JSON as JSON.stringify would write it or as raw text. */
export const nastyNumber: fc.Arbitrary<number | RawNumber> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBER_TEXTS).map((t) => new RawNumber(t)) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, -1, 0.5, 1e15, -1e15, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE) },
);

/**
 * A JSON value written as raw text (`text`), and the same value as a GraphQL literal (`graphql`):
 * what a generator cannot build as a JavaScript value cheaply, or at all without overflowing the
 * stack of whoever walks it.
 */
export class RawJson {
  readonly text: string;
  readonly graphql: string;

  constructor(text: string, graphql: string) {
    this.text = text;
    this.graphql = graphql;
  }
}

/** Nesting depths around the limit (MAX_JSON_DEPTH, 32, counted from wherever the value sits) and far past it. */
export const DEEP_DEPTHS: readonly number[] = [30, 31, 32, 33, 34, 64, 1000, 8000];

/** `depth` levels of arrays, of objects (`{"a":…}`), or both in turn, around a leaf. */
export function deepJsonOf(depth: number, shape: 'arrays' | 'objects' | 'mixed', leaf = '1'): RawJson {
  const open = (i: number, graphql: boolean) => (shape === 'arrays' || (shape === 'mixed' && i % 2 === 0) ? '[' : graphql ? '{a: ' : '{"a":');
  const close = (i: number) => (shape === 'arrays' || (shape === 'mixed' && i % 2 === 0) ? ']' : '}');
  const levels = Array.from({ length: depth }, (_, i) => i);
  const closing = levels.map(close).reverse().join('');
  return new RawJson(`${levels.map((i) => open(i, false)).join('')}${leaf}${closing}`, `${levels.map((i) => open(i, true)).join('')}${leaf}${closing}`);
}

/** Arrays and objects nested from just under the depth limit to 8,000 levels (16 KB): what overflowed a recursive walk. */
export const deepJson: fc.Arbitrary<RawJson> = fc.tuple(fc.constantFrom(...DEEP_DEPTHS), fc.constantFrom('arrays' as const, 'objects' as const, 'mixed' as const))
  .map(([depth, shape]) => deepJsonOf(depth, shape));

/** A JSON value of any shape, including prototype-polluting keys, now and then nested far too deep. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 15, arbitrary: fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null), fc.boolean(), nastyNumber, nastyString,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', ''), fc.string({ maxLength: 6 })), tie('value'), { maxKeys: 4 }),
    ),
  })).value },
  { weight: 1, arbitrary: deepJson },
);

/** JSON text of a value that may hold RawNumbers. `__proto__` keys made with defineProperty are written like any other key. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawNumber || value instanceof RawJson) return value.text;
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${toJsonText((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** An own property even for `__proto__` (a plain assignment would set the prototype instead). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A short, printable description of a value for failure reports (long strings summarised). */
export function describeValue(value: unknown): string {
  const text = typeof value === 'string' ? value : toJsonText(value);
  return text.length > 300 ? `${text.slice(0, 120)}… (${text.length} chars) …${text.slice(-60)}` : text;
}
