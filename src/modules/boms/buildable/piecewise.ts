import { floorDiv, ZERO, type Exact } from '../../../kernel/numbers/index.ts';

/**
 * A non-decreasing function of the whole number of finished units N ≥ 0, affine between integer
 * breakpoints: f(N) = c + m·N on [start_i, start_{i+1}). Demand pushed down a recipe is such a function:
 * a shelf of s units turns d(N) into max(d(N) − s, 0), which adds one breakpoint (where the shelf runs
 * out). Breakpoints are integers (only whole N are asked about), so everything stays exact.
 */
export interface Piece { start: Exact; c: Exact; m: Exact }
export type Piecewise = Piece[];

export const zeroFn = (): Piecewise => [{ start: ZERO, c: ZERO, m: ZERO }];
export const linearFn = (slope: Exact): Piecewise => [{ start: ZERO, c: ZERO, m: slope }];

export function isZero(f: Piecewise): boolean {
  return f.every((p) => p.c.isZero() && p.m.isZero());
}

export function scale(f: Piecewise, k: Exact): Piecewise {
  return f.map((p) => ({ start: p.start, c: p.c.n === 0n ? p.c : p.c.times(k), m: p.m.times(k) }));
}

const negated = (f: Piecewise): Piecewise => f.map((p) => ({ start: p.start, c: p.c.negated(), m: p.m.negated() }));

/**
 * f + g·k, or f − g·k when `subtract` (k null: 1): one piece at each start of either (both start at
 * 0, breakpoints ascending), merged in one pass without building a scaled or negated copy of g.
 */
function combine(f: Piecewise, g: Piecewise, subtract: boolean, k: Exact | null): Piecewise {
  if (isZero(f)) {
    const h = k === null ? g : scale(g, k);
    return subtract ? negated(h) : h;
  }
  if (isZero(g) || k?.n === 0n) return f;
  const sum = (a: Piece, b: Piece, start: Exact): Piece => {
    const c = k === null || b.c.n === 0n ? b.c : b.c.times(k);
    const m = k === null ? b.m : b.m.times(k);
    return subtract ? { start, c: a.c.minus(c), m: a.m.minus(m) } : { start, c: a.c.plus(c), m: a.m.plus(m) };
  };
  if (f.length === 1 && g.length === 1) return [sum(f[0]!, g[0]!, ZERO)];
  const out: Piecewise = [];
  let i = 0;
  let j = 0;
  while (i < f.length || j < g.length) {
    // The next breakpoint of either; the pieces covering it are the last ones started at or before it.
    const order = i === f.length ? 1 : j === g.length ? -1 : f[i]!.start.cmp(g[j]!.start);
    const start = order <= 0 ? f[i]!.start : g[j]!.start;
    if (order <= 0) i++;
    if (order >= 0) j++;
    out.push(sum(f[Math.max(i - 1, 0)]!, g[Math.max(j - 1, 0)]!, start));
  }
  return out;
}

export function add(f: Piecewise, g: Piecewise): Piecewise {
  return combine(f, g, false, null);
}

/** f − g. */
export function minus(f: Piecewise, g: Piecewise): Piecewise {
  return combine(f, g, true, null);
}

/** f − g·k: minus(f, scale(g, k)) without the scaled copy. */
export function minusScaled(f: Piecewise, g: Piecewise, k: Exact): Piecewise {
  return combine(f, g, true, k);
}

/** max(f(N) − s, 0) for a non-decreasing f ≥ 0: what is left to build once a shelf of s units is used up. */
export function excess(f: Piecewise, s: Exact): Piecewise {
  if (s.lte(0)) return f;
  for (let i = 0; i < f.length; i++) {
    const p = f[i]!;
    const next = f[i + 1]?.start;
    // smallest integer n ≥ p.start with c + m·n > s
    let n: Exact | null;
    if (p.m.isZero()) n = p.c.gt(s) ? p.start : null;
    else {
      n = floorDiv(s.minus(p.c), p.m).plus(1);
      if (n.lt(p.start)) n = p.start;
    }
    if (n === null || (next !== undefined && n.gte(next))) continue;
    const head: Piecewise = n.gt(0) ? [{ start: ZERO, c: ZERO, m: ZERO }] : [];
    const tail = [{ ...p, start: n }, ...f.slice(i + 1)].map((q) => ({ start: q.start, c: q.c.minus(s), m: q.m }));
    return [...head, ...tail];
  }
  return zeroFn();
}

/** The largest whole N with f(N) ≤ limit, or null when every N fits (f never exceeds the limit). */
export function largestWithin(f: Piecewise, limit: Exact): Exact | null {
  let best: Exact = ZERO.minus(1);
  for (let i = 0; i < f.length; i++) {
    const p = f[i]!;
    const next = f[i + 1]?.start;
    if (p.c.plus(p.m.times(p.start)).gt(limit)) return best;
    if (p.m.isZero()) {
      if (next === undefined) return null;
      best = next.minus(1);
      continue;
    }
    const n = floorDiv(limit.minus(p.c), p.m);
    if (next === undefined || n.lt(next)) return n;
    best = next.minus(1);
  }
  return best;
}
