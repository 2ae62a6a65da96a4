import type { DecimalString } from './types.ts';

// A small seeded random source for the dataset generator: the same seed gives the same
// dataset on every machine (no Math.random, no clock).

export class Prng {
  private state: number;
  private uuidCount = 0;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** mulberry32: 32-bit state, good enough spread for synthetic data, and fast. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Up to `count` distinct elements (fewer when the list is shorter), by rejection. */
  pickDistinct<T>(items: readonly T[], count: number): T[] {
    const wanted = Math.min(count, items.length);
    const chosen = new Set<T>();
    while (chosen.size < wanted) chosen.add(this.pick(items));
    return [...chosen];
  }

  /**
   * A decimal in [min, max] with `fractionDigits` digits after the point, drawn on the integer
   * grid so no float arithmetic touches the value.
   */
  decimal(min: number, max: number, fractionDigits: number): DecimalString {
    const scale = 10 ** fractionDigits;
    return scaledDecimal(this.int(Math.round(min * scale), Math.round(max * scale)), fractionDigits);
  }

  hex(digits: number): string {
    let out = '';
    while (out.length < digits) out += Math.floor(this.next() * 0x10000).toString(16).padStart(4, '0');
    return out.slice(0, digits);
  }

  /**
   * A UUID-shaped id. The last group carries a running counter, because a 32-bit generator
   * repeats 128-bit draws often enough to collide among a few hundred thousand ids.
   */
  uuid(): string {
    this.uuidCount += 1;
    const variant = (8 + this.int(0, 3)).toString(16);
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${variant}${this.hex(3)}-${this.uuidCount.toString(16).padStart(12, '0')}`;
  }
}

/** Canonical decimal text of `units / 10^fractionDigits` for a non-negative integer `units`. */
export function scaledDecimal(units: number, fractionDigits: number): DecimalString {
  if (fractionDigits === 0) return String(units);
  const digits = String(units).padStart(fractionDigits + 1, '0');
  const whole = digits.slice(0, -fractionDigits);
  const fraction = digits.slice(-fractionDigits).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
