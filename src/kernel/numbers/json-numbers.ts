import { decimalParts } from './exact.ts';

// JSON numbers, exactly. The API's figures (quantities and money below 10^14 with 6 fractional
// digits: up to 20 significant digits) do not all fit a double, which holds 15–17. So numbers are
// written from their exact decimal text (JSON.rawJSON: JSON.stringify writes the text as is), and
// a number token whose double is not its value is read from its source text (Node passes a
// JSON.parse reviver the source of each primitive) and kept as that text once the request's schema
// has checked it.

/** A value JSON.stringify writes as its text, verbatim (Node ≥ 21; the TypeScript lib does not declare it yet). */
export interface RawJson { readonly rawJSON: string }
const json = JSON as unknown as { rawJSON(text: string): RawJson };

/** A JSON number written as `text` (decimal text, e.g. "99999999999999.999999"): never through a double. */
export function jsonNumber(text: string): RawJson {
  return json.rawJSON(text);
}

/**
 * The JSON number of canonical decimal text (toDecimalString's): up to 15 characters (15 significant
 * digits at most) a double holds it and JSON.stringify writes this very text back, so the common
 * short figures skip JSON.rawJSON (which parses its text); longer ones are written verbatim.
 */
export function exactJsonNumber(text: string): number | RawJson {
  return text.length <= 15 ? Number(text) : json.rawJSON(text);
}

/** The third argument JSON.parse gives a reviver (Node ≥ 21): the source text of a primitive value. */
export interface JsonReviverContext { source?: string }

/** True when `value`, the double JSON.parse made of the number token `source`, is not the token's decimal value. */
export function isInexact(source: string, value: number): boolean {
  const shortest = String(value); // the shortest text that reads back as the double
  if (shortest === source) return false;
  const a = decimalParts(source);
  const b = decimalParts(shortest);
  if (!a || !b) return true; // ±Infinity: the token overflowed
  // -0 and 0 are the same number here: the sign of zero was never part of a figure.
  return a.digits !== b.digits || (a.digits !== '' && (a.negative !== b.negative || a.scale !== b.scale));
}

// A number token can be inexact only with 16 or more significant digits or with an exponent (1e-400
// reads as 0). Text without either (most request bodies) is parsed once, by Fastify's parser.
const MAYBE_INEXACT = /\d[eE][+-]?\d|\d(?:\.?\d){15}/;

/** Cheap pre-check of a JSON text: false means every number token of it reads exactly as a double. */
export function mayHoldInexactNumbers(text: string): boolean {
  return MAYBE_INEXACT.test(text);
}

interface Inexact { holder: Record<string, unknown>; key: string; source: string }
/** The inexact number tokens of each parsed document, by its root; taken back by restoreExactNumbers. */
const pending = new WeakMap<object, Inexact[]>();

const bits = new DataView(new ArrayBuffer(8));

/** The double next to `d` towards zero (d finite and not zero). */
function nextTowardZero(d: number): number {
  bits.setFloat64(0, d);
  bits.setBigUint64(0, bits.getBigUint64(0) - 1n);
  return bits.getFloat64(0);
}

/** True when the exact value of the double `d` is larger in magnitude than the decimal `source`. */
function doubleExceeds(d: number, source: string): boolean {
  const text = decimalParts(source);
  if (!text || text.digits === '') return d !== 0;
  bits.setFloat64(0, Math.abs(d));
  const raw = bits.getBigUint64(0);
  const exponent = Number(raw >> 52n);
  const mantissa = (raw & ((1n << 52n) - 1n)) | (exponent === 0 ? 0n : 1n << 52n);
  const power = (exponent === 0 ? 1 : exponent) - 1075; // |d| = mantissa × 2^power
  // Both as integers over 10^k: mantissa × 2^power = mantissa × 5^-power / 10^-power.
  const [dn, dk] = power >= 0 ? [mantissa << BigInt(power), 0] : [mantissa * 5n ** BigInt(-power), -power];
  const tn = BigInt(text.digits);
  const tk = text.scale;
  const k = Math.max(dk, tk);
  const left = dn * 10n ** BigInt(k - dk);
  const right = tk >= 0 ? tn * 10n ** BigInt(k - tk) : tn * 10n ** BigInt(-tk) * 10n ** BigInt(k);
  return left > right;
}

/**
 * JSON.parse in which a number token that a double does not hold is read as the double next to its
 * value towards zero (so a schema's bounds at 0 and 10^14 judge it as they would the exact value:
 * 99999999999999.999999 is below 10^14, 100000000000000.000001 is not), and is remembered with its
 * source text for {@link restoreExactNumbers}. The text must already be valid JSON.
 */
export function parseJsonExactly(text: string): unknown {
  const inexact: Inexact[] = [];
  const value = JSON.parse(text, function (this: Record<string, unknown>, key: string, parsed: unknown, context?: JsonReviverContext) {
    if (typeof parsed !== 'number' || context?.source === undefined || !isInexact(context.source, parsed)) return parsed;
    inexact.push({ holder: this, key, source: context.source });
    if (!Number.isFinite(parsed) || parsed === 0) return parsed;
    // A source of thousands of digits is refused later for its fractional digits anyway.
    if (context.source.length <= 1100 && doubleExceeds(parsed, context.source)) return nextTowardZero(parsed);
    return parsed;
  }) as unknown;
  if (inexact.length > 0 && typeof value === 'object' && value !== null) pending.set(value, inexact);
  return value;
}

/**
 * After the request's schema accepted `root` (parsed by {@link parseJsonExactly}): every number
 * token a double did not hold becomes its exact source text, which the decimal readers
 * (parseDecimalInput, the GraphQL Decimal scalar) take digit for digit.
 */
export function restoreExactNumbers(root: unknown): void {
  if (typeof root !== 'object' || root === null) return;
  const inexact = pending.get(root);
  if (!inexact) return;
  pending.delete(root);
  for (const { holder, key, source } of inexact) holder[key] = source;
}
