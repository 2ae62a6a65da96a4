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
  return f.map((p) => ({ start: p.start, c: p.c.times(k), m: p.m.times(k) }));
}

function pieceAt(f: Piecewise, n: Exact): Piece {
  let found = f[0]!;
  for (const p of f) {
    if (p.start.lte(n)) found = p;
    else break;
  }
  return found;
}

export function add(f: Piecewise, g: Piecewise): Piecewise {
  if (isZero(f)) return g;
  if (isZero(g)) return f;
  if (f.length === 1 && g.length === 1) return [{ start: ZERO, c: f[0]!.c.plus(g[0]!.c), m: f[0]!.m.plus(g[0]!.m) }];
  const starts = [...f, ...g].map((p) => p.start).sort((a, b) => a.comparedTo(b)).filter((s, i, all) => i === 0 || !s.eq(all[i - 1]!));
  return starts.map((start) => {
    const a = pieceAt(f, start);
    const b = pieceAt(g, start);
    return { start, c: a.c.plus(b.c), m: a.m.plus(b.m) };
  });
}

/** f − g. */
export function minus(f: Piecewise, g: Piecewise): Piecewise {
  return add(f, g.map((p) => ({ start: p.start, c: p.c.negated(), m: p.m.negated() })));
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
