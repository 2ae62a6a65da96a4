// Exact decimal numbers on BigInt: value = n / 10^scale. Quantities and money are numeric(20,6) in
// the database, and recipe arithmetic multiplies them along deep paths, so results need far more
// than 6 places; a BigInt mantissa with a free scale is exact at any depth (sums align scales,
// products add them) and costs a few native operations instead of a 1,000-digit decimal.js run.
// The method names follow decimal.js (plus, times, toFixed, …) so the call sites read as before.

/** What the arithmetic accepts: an Exact, or decimal text / a JS number / a bigint (parsed exactly). */
export type ExactInput = Exact | string | number | bigint;

// 10^k for the scales that occur (6-place values multiplied a few times); larger ones are computed.
const POW10: bigint[] = [1n];
for (let k = 1; k <= 96; k++) POW10.push(POW10[k - 1]! * 10n);

export function pow10(k: number): bigint {
  return k < POW10.length ? POW10[k]! : 10n ** BigInt(k);
}

// Text read as a decimal: optional sign, digits with an optional point, optional exponent — the
// forms PostgreSQL (`0.400000`), JSON and decimal.js accept ("5.", ".5", "1e-7", "-2.5E+3").
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** Scales beyond this are not quantities: refused rather than materialised as giant integers. */
const MAX_TEXT_SCALE = 10_000;

/** value = (negative ? -1 : 1) × digits / 10^scale; `digits` has no leading or trailing zeros ('' for zero, scale 0). */
export interface DecimalParts { negative: boolean; digits: string; scale: number }

/** Splits decimal text into its parts without building the number (so huge exponents can be judged first); null = not decimal text. */
export function decimalParts(text: string): DecimalParts | null {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return null;
  const whole = m[2]!;
  const fraction = m[3] ?? '';
  if (whole === '' && fraction === '') return null;
  const all = whole + fraction;
  // Number() of a long exponent is approximate, which only matters far outside MAX_TEXT_SCALE.
  let scale = fraction.length - (m[4] === undefined ? 0 : Number(m[4]));
  let start = 0;
  while (start < all.length && all.charCodeAt(start) === 48) start++;
  let end = all.length;
  while (end > start && all.charCodeAt(end - 1) === 48) {
    end--;
    scale--;
  }
  return start === end ? { negative: m[1] === '-', digits: '', scale: 0 } : { negative: m[1] === '-', digits: all.slice(start, end), scale };
}

/** Builds the number of decimal parts (see decimalParts). */
export function fromParts(parts: DecimalParts): Exact {
  if (parts.digits === '') return ZERO;
  if (Math.abs(parts.scale) > MAX_TEXT_SCALE) throw new RangeError(`decimal exponent out of range: scale ${parts.scale}`);
  const n = BigInt(parts.digits);
  return Exact.of(parts.negative ? -n : n, parts.scale);
}

/** PostgreSQL's numeric text (`-12.500000`): one scan, no regex, most of what is read. Null = another form. */
function readPlain(text: string): Exact | null {
  const negative = text.charCodeAt(0) === 45; // '-'
  const start = negative ? 1 : 0;
  let dot = -1;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && dot < 0) dot = i; // '.'
    else if (c < 48 || c > 57) return null;
  }
  if (dot === start || dot === text.length - 1 || text.length === start) return null;
  let end = text.length;
  if (dot >= 0) while (end > dot + 1 && text.charCodeAt(end - 1) === 48) end--;
  const scale = dot < 0 ? 0 : end - dot - 1;
  const n = BigInt(dot < 0 ? text.slice(start) : scale === 0 ? text.slice(start, dot) : text.slice(start, dot) + text.slice(dot + 1, end));
  return Exact.of(negative ? -n : n, scale);
}

function readText(text: string): Exact {
  const plain = readPlain(text);
  if (plain) return plain;
  const parts = decimalParts(text);
  if (!parts) throw new SyntaxError(`not a decimal number: "${text}"`);
  return fromParts(parts);
}

/** An immutable exact decimal. Normalised: no trailing zero in `n` when `scale` > 0, so equal values are equal objects field by field. */
export class Exact {
  /** The unscaled integer. */
  readonly n: bigint;
  /** Digits after the decimal point (≥ 0). */
  readonly scale: number;
  /** Nominal typing: no other object with the same methods (a decimal.js Decimal) passes as an Exact. */
  private declare readonly nominal: never;

  private constructor(n: bigint, scale: number) {
    this.n = n;
    this.scale = scale;
  }

  /** n / 10^scale, normalised (a negative scale multiplies). */
  static of(n: bigint, scale = 0): Exact {
    if (scale > 0) {
      if (n === 0n) return ZERO;
      while (scale > 0 && n % 10n === 0n) {
        n /= 10n;
        scale--;
      }
    } else if (scale < 0) {
      n *= pow10(-scale);
      scale = 0;
    }
    return new Exact(n, scale);
  }

  static from(value: ExactInput): Exact {
    if (value instanceof Exact) return value;
    if (typeof value === 'bigint') return new Exact(value, 0);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
      if (Number.isSafeInteger(value)) return new Exact(BigInt(value), 0);
      // String(n) is the shortest text that reads back as n: what decimal.js reads too.
      return readText(String(value));
    }
    return readText(value);
  }

  static max(a: ExactInput, b: ExactInput): Exact {
    const x = Exact.from(a);
    const y = Exact.from(b);
    return x.cmp(y) >= 0 ? x : y;
  }

  static min(a: ExactInput, b: ExactInput): Exact {
    const x = Exact.from(a);
    const y = Exact.from(b);
    return x.cmp(y) <= 0 ? x : y;
  }

  plus(other: ExactInput): Exact {
    const o = Exact.from(other);
    if (o.n === 0n) return this;
    if (this.n === 0n) return o;
    if (this.scale === o.scale) return Exact.of(this.n + o.n, this.scale);
    return this.scale > o.scale
      ? Exact.of(this.n + o.n * pow10(this.scale - o.scale), this.scale)
      : Exact.of(this.n * pow10(o.scale - this.scale) + o.n, o.scale);
  }

  minus(other: ExactInput): Exact {
    return this.plus(Exact.from(other).negated());
  }

  times(other: ExactInput): Exact {
    const o = Exact.from(other);
    if (o.scale === 0 && o.n === 1n) return this;
    if (this.scale === 0 && this.n === 1n) return o;
    return Exact.of(this.n * o.n, this.scale + o.scale);
  }

  /** value / 10^k: exact (waste percentages become fractions this way). */
  divPow10(k: number): Exact {
    return Exact.of(this.n, this.scale + k);
  }

  /** Whole powers only (k ≥ 0): repeated products stay exact. */
  pow(k: number): Exact {
    if (!Number.isSafeInteger(k) || k < 0) throw new RangeError(`Exact.pow takes a whole exponent ≥ 0, got ${k}`);
    return Exact.of(this.n ** BigInt(k), this.scale * k);
  }

  negated(): Exact {
    return this.n === 0n ? this : new Exact(-this.n, this.scale);
  }

  abs(): Exact {
    return this.n < 0n ? new Exact(-this.n, this.scale) : this;
  }

  /** -1, 0 or 1. */
  cmp(other: ExactInput): number {
    const o = Exact.from(other);
    const a = this.n;
    const b = o.n;
    // Different signs decide without aligning the scales.
    if ((a < 0n) !== (b < 0n)) return a < 0n ? -1 : 1;
    if (this.scale === o.scale) return a < b ? -1 : a > b ? 1 : 0;
    const x = this.scale > o.scale ? a : a * pow10(o.scale - this.scale);
    const y = this.scale > o.scale ? b * pow10(this.scale - o.scale) : b;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /** decimal.js's name for cmp. */
  comparedTo(other: ExactInput): number {
    return this.cmp(other);
  }

  eq(other: ExactInput): boolean {
    const o = Exact.from(other);
    // Normalised: equal values have equal fields.
    return this.n === o.n && this.scale === o.scale;
  }

  lt(other: ExactInput): boolean { return this.cmp(other) < 0; }
  lte(other: ExactInput): boolean { return this.cmp(other) <= 0; }
  gt(other: ExactInput): boolean { return this.cmp(other) > 0; }
  gte(other: ExactInput): boolean { return this.cmp(other) >= 0; }
  isZero(): boolean { return this.n === 0n; }
  isNegative(): boolean { return this.n < 0n; }
  isInteger(): boolean { return this.scale === 0; }

  /** Digits after the point of the normalised value (0 for integers). */
  decimalPlaces(): number {
    return this.scale;
  }

  /** Largest integer ≤ value. */
  floor(): Exact {
    if (this.scale === 0) return this;
    const d = pow10(this.scale);
    const q = this.n / d; // truncates toward zero
    return Exact.of(this.n < 0n && q * d !== this.n ? q - 1n : q);
  }

  /** Smallest integer ≥ value. */
  ceil(): Exact {
    if (this.scale === 0) return this;
    const d = pow10(this.scale);
    const q = this.n / d;
    return Exact.of(this.n > 0n && q * d !== this.n ? q + 1n : q);
  }

  /** Rounded to `places` fractional digits, half away from zero (decimal.js ROUND_HALF_UP): -0.0000005 → -0.000001. */
  toDecimalPlaces(places: number): Exact {
    if (this.scale <= places) return this;
    const d = pow10(this.scale - places);
    const negative = this.n < 0n;
    const magnitude = negative ? -this.n : this.n;
    let q = magnitude / d;
    if ((magnitude - q * d) * 2n >= d) q += 1n;
    return Exact.of(negative ? -q : q, places);
  }

  /** Canonical text: no exponent, no trailing zeros, no negative zero ("2.5", "0", "-0.3"). */
  toFixed(): string {
    if (this.scale === 0) return this.n.toString();
    const negative = this.n < 0n;
    const digits = (negative ? -this.n : this.n).toString();
    const cut = digits.length - this.scale;
    const text = cut > 0 ? `${digits.slice(0, cut)}.${digits.slice(cut)}` : `0.${'0'.repeat(-cut)}${digits}`;
    return negative ? `-${text}` : text;
  }

  toString(): string {
    return this.toFixed();
  }

  /** JSON has no BigInt: an Exact that reaches JSON.stringify is written as its canonical text. */
  toJSON(): string {
    return this.toFixed();
  }

  /** The nearest double (for whole counts such as buildable units, or for JSON numbers after rounding). */
  toNumber(): number {
    return this.scale === 0 ? Number(this.n) : Number(this.toFixed());
  }
}

export const ZERO: Exact = Exact.of(0n);
export const ONE: Exact = Exact.of(1n);

/** Exact.from: the short form for call sites. */
export function exact(value: ExactInput): Exact {
  return Exact.from(value);
}
