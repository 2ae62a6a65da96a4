import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { graphqlCaller, only, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { lastEventSequence, levelEventsSince } from '../helpers/level-events.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Shelves count what passed QC, once (docs/work-orders.md): a QC review that fails units of a
// completed run takes them off the shelf; a rework run puts back only the units held for rework;
// a reversal takes back only what the run still has there. Every move goes through the ledger
// (adjustment history + inventory.level_changed). REST where v1 has the route (starting runs, the
// shelf read), GraphQL for completion, QC reviews and rework items.

let t: TestApp;
let key: string;
const shop = uniqueShopId('shelf-qc');
const SHELF = 'inventory:preassembled:44100@101';

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, ['wo_a', 'wo_b', 'wo_c', 'wo_d'].map((id) => workOrder(id, 'in_progress')))));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const gql = graphqlCaller(() => t, () => key);
const tokenOf = async (id: string) => (await t.get(`/api/v1/work-orders/${id}`, key)).body.data.updatedAt as string;
const shelf = async () => (await t.get('/api/v1/raw-materials/44100/preassembled?locationIds=101', key)).body.data.totals.quantity as number;
async function start(id: string, buildRunId: string, quantity: number, rework: string[] = []) {
  const res = await t.request({ method: 'PATCH', url: `/api/v1/work-orders/${id}/build-runs`, key, headers: { 'content-type': 'application/json' },
    payload: { expectedUpdatedAt: await tokenOf(id), buildRunId, items: [{ itemId: 'woi_1', quantity }], ...(rework.length ? { runType: 'rework', reworkItemIds: rework } : {}) } });
  expect(res.statusCode, res.body).toBe(200);
}
async function runChange(name: 'completeBuildRun' | 'reverseBuildRun', id: string, buildRunId: string) {
  const { result, failure } = only(await gql(`mutation($id: ID!, $run: ID!, $t: DateTime!) { ${name}(workOrderId: $id, buildRunId: $run, expectedUpdatedAt: $t) {
    buildRun { status } ${USER_ERRORS} } }`, { id, run: buildRunId, t: await tokenOf(id) }));
  expect(failure).toBeNull();
  return result;
}
async function review(id: string, buildRunId: string, approved: number, failed: number) {
  const { failure } = only(await gql(`mutation($id: ID!, $t: DateTime!, $run: ID!, $items: [QcReviewItemInput!]) {
    addQcReview(workOrderId: $id, expectedUpdatedAt: $t, buildRunId: $run, items: $items) { workOrderRecordWrite { recordId } ${USER_ERRORS} } }`,
  { id, t: await tokenOf(id), run: buildRunId, items: [{ itemId: 'woi_1', approvedQuantity: String(approved), failedQuantity: String(failed) }] }));
  expect(failure).toBeNull();
}
async function reworkItem(id: string, buildRunId: string, quantity: number): Promise<string> {
  const { result, failure } = only(await gql(`mutation($id: ID!, $t: DateTime!, $run: ID, $q: Decimal!) {
    addReworkItem(workOrderId: $id, expectedUpdatedAt: $t, description: "Wicks off-centre", quantity: $q, buildRunId: $run) { workOrderRecordWrite { recordId } ${USER_ERRORS} } }`,
  { id, t: await tokenOf(id), run: buildRunId, q: String(quantity) }));
  expect(failure).toBeNull();
  return result.recordId;
}
const history = (workOrderId: string) => t.orm.em.fork().execute<any[]>(
  `select build_run_id, source, delta::text from inventory_adjustments where shop_id = ? and work_order_id = ? and stock = 'preassembled' and variant_id = '44100'
   order by created_at, id`, [shop, workOrderId]);

describe('shelves count what passed QC, once', () => {
  it('build 10, QC fails 2 → shelf 8; rework the 2 → shelf 10, not 12; each move in the history and as an event', async () => {
    const base = await shelf();
    const since = await lastEventSequence(t.orm, shop);
    await start('wo_a', 'a-1', 10);
    await runChange('completeBuildRun', 'wo_a', 'a-1');
    expect(await shelf()).toBe(base + 10);
    await review('wo_a', 'a-1', 8, 2);
    expect(await shelf(), 'failed units leave the shelf').toBe(base + 8);
    const rw = await reworkItem('wo_a', 'a-1', 2);
    await start('wo_a', 'a-rw', 2, [rw]);
    await runChange('completeBuildRun', 'wo_a', 'a-rw');
    expect(await shelf(), 'the rework run puts back the 2 it reworked, not 2 more').toBe(base + 10);
    expect(await history('wo_a')).toEqual([
      { build_run_id: 'a-1', source: 'build_run_completion', delta: '10.000000' },
      { build_run_id: 'a-1', source: 'qc_review', delta: '-2.000000' },
      { build_run_id: 'a-rw', source: 'build_run_completion', delta: '2.000000' },
    ]);
    const events = await levelEventsSince(t.orm, shop, since, SHELF);
    expect(events.map((e) => [e.data.source, e.data.delta, e.data.after])).toEqual([
      ['build_run_completion', 10, base + 10], ['qc_review', -2, base + 8], ['build_run_completion', 2, base + 10],
    ]);
  });

  it('a rework run puts back only units held for rework: reworking 3 when 2 failed adds 2; a second rework run adds nothing', async () => {
    const base = await shelf();
    await start('wo_b', 'b-1', 5);
    await runChange('completeBuildRun', 'wo_b', 'b-1');
    await review('wo_b', 'b-1', 3, 2);
    expect(await shelf()).toBe(base + 3);
    const rw = await reworkItem('wo_b', 'b-1', 3);
    await start('wo_b', 'b-rw1', 3, [rw]);
    await runChange('completeBuildRun', 'wo_b', 'b-rw1');
    expect(await shelf()).toBe(base + 5);
    await start('wo_b', 'b-rw2', 1, [rw]);
    await runChange('completeBuildRun', 'wo_b', 'b-rw2');
    expect(await shelf(), 'nothing is held any more').toBe(base + 5);
    // The rework run's own QC fails 1 of what it put back: off the shelf, and held for rework again.
    await review('wo_b', 'b-rw1', 1, 1);
    expect(await shelf()).toBe(base + 4);
    await start('wo_b', 'b-rw3', 1, [rw]);
    await runChange('completeBuildRun', 'wo_b', 'b-rw3');
    expect(await shelf()).toBe(base + 5);
  });

  it('QC that fails units of a run not completed yet: its completion shelves only what passed', async () => {
    const base = await shelf();
    await start('wo_c', 'c-1', 10);
    await review('wo_c', 'c-1', 8, 2);
    expect(await shelf(), 'nothing is on the shelf before completion').toBe(base);
    await runChange('completeBuildRun', 'wo_c', 'c-1');
    expect(await shelf()).toBe(base + 8);
    expect(await history('wo_c')).toEqual([{ build_run_id: 'c-1', source: 'build_run_completion', delta: '8.000000' }]);
  });

  it('reversing a completed run after QC failed units takes back what it still has on the shelf (8), not its whole output (10)', async () => {
    const base = await shelf();
    await start('wo_d', 'd-1', 10);
    await runChange('completeBuildRun', 'wo_d', 'd-1');
    await review('wo_d', 'd-1', 8, 2);
    expect(await shelf()).toBe(base + 8);
    await runChange('reverseBuildRun', 'wo_d', 'd-1');
    expect(await shelf()).toBe(base);
    expect((await history('wo_d')).map((h) => [h.source, h.delta])).toEqual([
      ['build_run_completion', '10.000000'], ['qc_review', '-2.000000'], ['build_run_completion_reversal', '-8.000000'],
    ]);
  });
});
