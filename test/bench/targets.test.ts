// The bench's targets table carries the bounds the performance issues set: a run that misses one shows
// it as missed, with the distance. Checked on made-up measurements, so the rule is the table, not a speed.
import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../bench/bench-shop.ts';
import type { Measurement } from '../../bench/measure.ts';
import { evaluateTargets } from '../../bench/targets.ts';

const measured = (p50: number, rssMiB = 200): Measurement =>
  ({ p50, p99: p50 * 2, rps: 1000 / p50, ok: 100, errors: 0, connections: 1, rssMiB, load1: 0 }) as unknown as Measurement;

function scenario(id: string, kind: 'read' | 'write', p50: number, rssMiB?: number): ScenarioResult {
  return {
    id, title: id, kind, paged: false, sql: 1, runs: { rest: { sql: 1, unloaded: measured(p50, rssMiB), loaded: null } },
    floorSameData: null, firstReadMs: null, workers: {}, failures: [],
  } as unknown as ScenarioResult;
}

const context = { mainLabel: '20k', connections: 16, workers: [1], pgliteLoadMB: null };
const p50Row = (rows: ReturnType<typeof evaluateTargets>, id: string) => rows.find((r) => r.scenario === id && r.column.startsWith('p50 ÷'));

describe('bench targets: the bounds of issue 32 are in the table', () => {
  const rows = evaluateTargets([
    scenario('locations', 'read', 1),
    scenario('bom-deep', 'read', 2.9), scenario('buildable', 'read', 3.1), scenario('work-order-read', 'read', 3),
    scenario('material-plan', 'read', 2), scenario('breakdown-50', 'read', 6.5),
    scenario('build-run', 'write', 3.9), scenario('inventory-patch', 'write', 4),
    scenario('planning', 'read', 2100, 280),
  ], { planning: { '20k': 2100, '100k': 10_000 } }, context);

  it('tree and work-order reads are held to 3× the reference, the breakdown to 6×', () => {
    expect(p50Row(rows, 'bom-deep')).toMatchObject({ limit: '≤ 3.00×', met: true });
    expect(p50Row(rows, 'buildable')).toMatchObject({ limit: '≤ 3.00×', met: false, miss: '0.10× over' });
    expect(p50Row(rows, 'work-order-read')).toMatchObject({ met: true });
    expect(p50Row(rows, 'material-plan')).toMatchObject({ met: true });
    expect(p50Row(rows, 'breakdown-50')).toMatchObject({ limit: '≤ 6.00×', met: false });
  });

  it('starting a build run is held to 4× the reference; a write without a bound gets no row', () => {
    expect(p50Row(rows, 'build-run')).toMatchObject({ limit: '≤ 4.00×', measured: '3.90×', met: true });
    expect(p50Row(rows, 'inventory-patch')).toBeUndefined();
  });

  it("the shop's plan has absolute bounds: 2 s, 300 MiB, 6× from 20k to 100k", () => {
    const own = rows.filter((r) => r.scenario === null && r.column.startsWith('Planning'));
    expect(own.map((r) => [r.limit, r.measured, r.met])).toEqual([
      ['≤ 2000 ms', '2100 ms', false],
      ['≤ 300 MiB', '280 MiB', true],
      ['≤ 6.00×', '4.76×', true],
    ]);
  });
});
