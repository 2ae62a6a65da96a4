import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// The state table of the work-order contract, written out here on purpose (not imported): the
// route and `availableTransitions` must both agree with it.
const STATES = ['draft', 'ready', 'in_progress', 'paused', 'quality_control', 'qc_approved', 'completed', 'cancelled'] as const;
const TABLE: Record<string, { forward?: string; back?: string; other: string[] }> = {
  draft: { forward: 'ready', other: ['in_progress', 'cancelled'] },
  ready: { forward: 'in_progress', back: 'draft', other: ['cancelled'] },
  in_progress: { forward: 'quality_control', back: 'ready', other: ['paused', 'cancelled'] },
  paused: { forward: 'in_progress', other: ['cancelled'] },
  quality_control: { forward: 'qc_approved', back: 'in_progress', other: ['cancelled'] },
  qc_approved: { forward: 'completed', back: 'quality_control', other: ['cancelled'] },
  completed: { back: 'qc_approved', other: [] },
  cancelled: { back: 'draft', other: [] },
};
const allowed = (from: string) => [TABLE[from]!.forward, TABLE[from]!.back, ...TABLE[from]!.other].filter(Boolean) as string[];

// Every work order here has items, a production location and one completed run: no blocker applies.
const completedRun = { buildRunId: 'run-done', status: 'completed', runType: 'production', startedAt: T0, completedAt: T0, items: [{ itemId: 'woi_1', quantity: 1 }], picks: [] };
const clean = (id: string, status: string, extra = {}) => workOrder(id, status, { buildRuns: [completedRun], ...extra });

let t: TestApp;
let key: string;
let readKey: string;
let otherKey: string;
const shop = uniqueShopId('wo-tr');

const pairs = STATES.flatMap((from) => STATES.map((to) => ({ from, to, id: `wo_pair_${from}_${to}` })));

beforeAll(async () => {
  t = await createTestApp();
  const reworkOpen = { reworkItems: [{ reworkItemId: 'rw-open', description: 'Re-pour', quantity: 1, status: 'open', createdAt: T0 }] };
  const startedRun = { ...completedRun, buildRunId: 'run-started', status: 'started', completedAt: null };
  const reversedRun = { ...completedRun, buildRunId: 'run-reversed', status: 'reversed', completedAt: null };
  await t.load(toDataset(workOrderShop(shop, [
    ...pairs.map((p) => clean(p.id, p.from)),
    ...STATES.map((s) => clean(`wo_base_${s}`, s)),
    workOrder('wo_empty_draft', 'draft', { items: [] }),
    workOrder('wo_unlocated_ready', 'ready', { productionLocationId: null }),
    workOrder('wo_unlocated_draft', 'draft', { productionLocationId: null }),
    workOrder('wo_no_run', 'in_progress'),
    workOrder('wo_reversed_only', 'in_progress', { buildRuns: [reversedRun] }),
    clean('wo_rework', 'qc_approved', reworkOpen),
    workOrder('wo_running', 'in_progress', { buildRuns: [startedRun] }),
    clean('wo_dir_fwd', 'ready'), clean('wo_dir_back', 'ready'), clean('wo_dir_none', 'completed'),
    clean('wo_event', 'ready'), clean('wo_stale', 'ready'), clean('wo_race', 'ready'), clean('wo_bad', 'ready'),
  ])));
  const other = uniqueShopId('wo-tr-other');
  await t.load(toDataset(datasetJson(other)));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

const transition = (id: string, body: Record<string, unknown>, k = key) =>
  t.request({ method: 'PATCH', url: `/api/v1/work-orders/${id}/transition`, key: k, payload: { expectedUpdatedAt: T0, ...body }, headers: { 'content-type': 'application/json' } });
const read = async (id: string, k = key) => (await t.get(`/api/v1/work-orders/${id}`, k)).body.data;

describe('the state table: every (from, to) cell', () => {
  it('each move of the table succeeds and every other is 409 NOT_ALLOWED (64 cells)', async () => {
    const results = await Promise.all(pairs.map(async (p) => ({ ...p, res: await transition(p.id, { to: p.to }) })));
    for (const { from, to, res } of results) {
      const expected = allowed(from).includes(to) ? 200 : 409;
      expect({ from, to, status: res.statusCode }).toEqual({ from, to, status: expected });
      if (expected === 200) expect(res.json().data).toMatchObject({ status: to, previousStatus: from });
      else expect(res.json().blockers).toEqual([{ code: 'NOT_ALLOWED', message: expect.any(String) }]);
    }
  });

  it('availableTransitions lists exactly the table\'s moves when nothing blocks, with direction on forward/back', async () => {
    for (const from of STATES) {
      const data = await read(`wo_base_${from}`);
      const expected = allowed(from).map((to) => ({
        to, ...(to === TABLE[from]!.forward ? { direction: 'forward' } : to === TABLE[from]!.back ? { direction: 'back' } : {}),
      }));
      expect(data.availableTransitions, from).toEqual(expected);
    }
  });
});

describe('blockers', () => {
  const blockers = async (id: string, to: string) => {
    const res = await transition(id, { to });
    expect(res.statusCode).toBe(409);
    return res.json().blockers.map((b: { code: string }) => b.code);
  };

  it('NO_ITEMS: an empty draft cannot go to ready or in_progress, but can be cancelled', async () => {
    expect(await blockers('wo_empty_draft', 'ready')).toContain('NO_ITEMS');
    expect(await blockers('wo_empty_draft', 'in_progress')).toContain('NO_ITEMS');
    expect((await read('wo_empty_draft')).availableTransitions).toEqual([{ to: 'cancelled' }]);
  });

  it('NO_PRODUCTION_LOCATION: to in_progress without a production location (forward and quick start)', async () => {
    expect(await blockers('wo_unlocated_ready', 'in_progress')).toEqual(['NO_PRODUCTION_LOCATION']);
    expect(await blockers('wo_unlocated_draft', 'in_progress')).toEqual(['NO_PRODUCTION_LOCATION']);
    expect((await read('wo_unlocated_ready')).availableTransitions.map((m: { to: string }) => m.to)).toEqual(['draft', 'cancelled']);
  });

  it('NO_BUILD_RUN: quality_control needs a run that was not reversed', async () => {
    expect(await blockers('wo_no_run', 'quality_control')).toEqual(['NO_BUILD_RUN']);
    expect(await blockers('wo_reversed_only', 'quality_control')).toEqual(['NO_BUILD_RUN']);
    expect((await read('wo_no_run')).availableTransitions.map((m: { to: string }) => m.to)).toEqual(['ready', 'paused', 'cancelled']);
  });

  it('OPEN_REWORK: completed needs every rework item resolved', async () => {
    expect(await blockers('wo_rework', 'completed')).toEqual(['OPEN_REWORK']);
    expect((await read('wo_rework')).availableTransitions.map((m: { to: string }) => m.to)).toEqual(['quality_control', 'cancelled']);
  });

  it('RUN_IN_PROGRESS: no pause or cancel while a run is started and not completed', async () => {
    expect(await blockers('wo_running', 'paused')).toEqual(['RUN_IN_PROGRESS']);
    expect(await blockers('wo_running', 'cancelled')).toEqual(['RUN_IN_PROGRESS']);
    expect((await read('wo_running')).availableTransitions.map((m: { to: string }) => m.to)).toEqual(['quality_control', 'ready']);
  });

  it('a blocked move changes nothing (status and token stay)', async () => {
    const data = await read('wo_running');
    expect(data).toMatchObject({ status: 'in_progress', updatedAt: T0 });
    expect(data.lifecycleEvents).toEqual([]);
  });
});

describe('PATCH /work-orders/{id}/transition', () => {
  it('direction forward/back derives the target from the current status; no target is NOT_ALLOWED', async () => {
    expect((await transition('wo_dir_fwd', { direction: 'forward' })).json().data).toMatchObject({ status: 'in_progress', previousStatus: 'ready' });
    expect((await transition('wo_dir_back', { direction: 'back' })).json().data).toMatchObject({ status: 'draft', previousStatus: 'ready' });
    const none = await transition('wo_dir_none', { direction: 'forward' });
    expect(none.statusCode).toBe(409);
    expect(none.json().blockers[0].code).toBe('NOT_ALLOWED');
  });

  it('both or neither of to/direction is 400; an unknown status is 400 naming the field', async () => {
    expect((await transition('wo_bad', { to: 'draft', direction: 'back' })).statusCode).toBe(400);
    expect((await transition('wo_bad', {})).statusCode).toBe(400);
    const unknown = await transition('wo_bad', { to: 'shipped' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toMatch(/^to/);
    expect((await read('wo_bad')).status).toBe('ready');
  });

  it('writes a lifecycle event (note, actor, from, to, time) whose id the response returns; the token moves forward', async () => {
    const res = await transition('wo_event', { to: 'in_progress', note: 'go', actorUserId: 'u-1', actorDisplayName: 'Ana' });
    expect(res.statusCode).toBe(200);
    const body = res.json().data;
    expect(body).toMatchObject({ workOrderId: 'wo_event', status: 'in_progress', previousStatus: 'ready', lifecycleEventId: expect.stringMatching(/^lce_/) });
    expect(new Date(body.updatedAt).getTime()).toBeGreaterThan(new Date(T0).getTime());
    const data = await read('wo_event');
    expect(data.updatedAt).toBe(body.updatedAt);
    expect(data.lifecycleEvents).toEqual([{
      eventId: body.lifecycleEventId, fromStatus: 'ready', toStatus: 'in_progress', note: 'go', actorUserId: 'u-1', actorDisplayName: 'Ana', createdAt: body.updatedAt,
    }]);
  });

  it('a stale expectedUpdatedAt is 409 and changes nothing', async () => {
    const res = await transition('wo_stale', { to: 'in_progress', expectedUpdatedAt: '2026-11-02T10:00:00.001Z' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('CONFLICT');
    expect(await read('wo_stale')).toMatchObject({ status: 'ready', updatedAt: T0, lifecycleEvents: [] });
  });

  it('50 concurrent transitions with one token: exactly one succeeds and one lifecycle event exists', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => transition('wo_race', { to: 'in_progress' })));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(49);
    expect((await read('wo_race')).lifecycleEvents).toHaveLength(1);
  });

  it('another shop\'s work order is 404 on every route; a read key is 403 on writes', async () => {
    for (const url of ['', '/material-plan', '/build-runs']) {
      expect((await t.get(`/api/v1/work-orders/wo_base_ready${url}`, otherKey)).status).toBe(404);
    }
    expect((await transition('wo_base_ready', { to: 'draft' }, otherKey)).statusCode).toBe(404);
    const patch = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_base_ready', key: otherKey, payload: { expectedUpdatedAt: T0, name: 'x' }, headers: { 'content-type': 'application/json' } });
    expect(patch.statusCode).toBe(404);
    const run = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_base_ready/build-runs', key: otherKey,
      payload: { expectedUpdatedAt: T0, buildRunId: 'r1', items: [{ itemId: 'woi_1', quantity: 1 }] }, headers: { 'content-type': 'application/json' } });
    expect(run.statusCode).toBe(404);
    expect((await transition('wo_base_ready', { to: 'draft' }, readKey)).statusCode).toBe(403);
    expect((await read('wo_base_ready')).status).toBe('ready');
  });
});
