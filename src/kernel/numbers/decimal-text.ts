import { decimalParts, type DecimalParts } from './exact.ts';

// Client-supplied number text (REST bodies, GraphQL Decimal inputs). Validation used to construct
// decimal.js values, so what a client may send is decimal.js's grammar: beside decimal text with an
// exponent, "Infinity"/"NaN" (refused later as not finite), "_" between digits, and hexadecimal,
// binary and octal literals with an optional binary exponent ("0x1.8p1" = 3). Kept here so the
// accepted inputs and the error each one gets do not change; nothing else reads these forms.
// The result stays in parts, so an absurd exponent is judged without building a giant number.

/** decimal.js's exponent limit: a larger exponent reads as Infinity, a smaller one as zero. */
const EXP_LIMIT = 9e15;
/** Binary exponents beyond this are far outside numeric(20,6): kept as a magnitude only. */
const MAX_BINARY_EXPONENT = 4096;

const BINARY_FORMS: { pattern: RegExp; prefix: string; bits: number }[] = [
  { pattern: /^0x([0-9a-f]+(\.[0-9a-f]*)?|\.[0-9a-f]+)(p[+-]?\d+)?$/i, prefix: '0x', bits: 4 },
  { pattern: /^0b([01]+(\.[01]*)?|\.[01]+)(p[+-]?\d+)?$/i, prefix: '0b', bits: 1 },
  { pattern: /^0o([0-7]+(\.[0-7]*)?|\.[0-7]+)(p[+-]?\d+)?$/i, prefix: '0o', bits: 3 },
];

/** A reading of client text: finite parts, or a value decimal.js would call Infinity/NaN; null = not a number at all. */
export type ClientReading = { finite: true; parts: DecimalParts } | { finite: false } | null;

/** Exact value of a base-2^k literal (mantissa digits × 2^exponent), as decimal parts. */
function binaryParts(body: string, prefix: string, bits: number): DecimalParts {
  const p = body.search(/p/i);
  const mantissa = body.slice(2, p > 0 ? p : undefined);
  const point = mantissa.indexOf('.');
  const fractionDigits = point < 0 ? 0 : mantissa.length - point - 1;
  let m = BigInt(prefix + (mantissa.replace('.', '') || '0'));
  let k = (p > 0 ? Number(body.slice(p + 1)) : 0) - fractionDigits * bits;
  if (m === 0n) return { negative: false, digits: '', scale: 0 };
  while ((m & 1n) === 0n) {
    m >>= 1n;
    k++;
  }
  // m odd: m × 2^k has exactly -k fractional digits when k < 0 (m × 5^-k / 10^-k).
  if (k > MAX_BINARY_EXPONENT) return { negative: false, digits: '1', scale: -Math.ceil(k * Math.LOG10E * Math.LN2) };
  if (k < -MAX_BINARY_EXPONENT) return { negative: false, digits: '1', scale: -k };
  return decimalParts(k >= 0 ? (m << BigInt(k)).toString() : `${m * 5n ** BigInt(-k)}e${k}`)!;
}

/** Reads client text as decimal.js did: one leading sign, then decimal text or one of the other forms. */
export function readClientDecimal(text: string): ClientReading {
  const sign = text.charCodeAt(0);
  const negative = sign === 45; // '-'
  let body = negative || sign === 43 ? text.slice(1) : text;
  let parts: DecimalParts | null = null;
  const plain = (s: string) => (s.charCodeAt(0) === 45 || s.charCodeAt(0) === 43 ? null : decimalParts(s));
  parts = plain(body);
  if (!parts) {
    if (body.includes('_')) {
      body = body.replace(/(\d)_(?=\d)/g, '$1');
      parts = plain(body);
    } else if (body === 'Infinity' || body === 'NaN') return { finite: false };
  }
  if (!parts) {
    const form = BINARY_FORMS.find((f) => f.pattern.test(body));
    if (!form) return null;
    parts = binaryParts(body, form.prefix, form.bits);
  }
  const exponent = parts.digits.length - parts.scale - 1;
  if (parts.digits !== '' && exponent > EXP_LIMIT) return { finite: false };
  if (parts.digits !== '' && exponent < -EXP_LIMIT) parts = { negative: false, digits: '', scale: 0 };
  // The sign is kept on zero too: decimal.js's "-0" is negative (refused where only ≥ 0 is allowed).
  return { finite: true, parts: { ...parts, negative } };
}

/** Fractional digits of the value (0 for integers and zero). */
export function fractionDigits(parts: DecimalParts): number {
  return parts.digits === '' ? 0 : Math.max(parts.scale, 0);
}

/** |value| ≥ 10^power. */
export function magnitudeAtLeast(parts: DecimalParts, power: number): boolean {
  return parts.digits !== '' && parts.digits.length - parts.scale - 1 >= power;
}
