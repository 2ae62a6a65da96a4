import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { graphqlCaller, only, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import type { EmulatedShop } from '../helpers/shopify-emulator/index.ts';
import { startConnectedShop, type ConnectedShop } from '../helpers/connected-shop.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { settleStorefront } from '../helpers/storefront-settle.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// The warehouse scenario of docs/work-orders.md ("A day in the warehouse"): build, complete, QC
// fails two units, rework them, fulfil an order, count the shelf. After every step the finished
// good's shelf, the work order's allocation and material plan, and the store's available level of
// the candle (storefront stock `shelf`) equal the hand-worked table there.
// Stock truth rules checked together: shelves count what passed QC once, allocation has no
// phantoms (units not yet started, shelves first), an order fulfilment takes the shelf first, a
// count sets the shelf.
//
// The shop (test/helpers/work-order-fixtures.ts): BOM-1001 sells candle 44100 and takes 0.4 kg of
// wax 44001 (+5% waste: 0.42) and one wick assembly ASM-1 (one wick VMAT-VAR-0001). Location 101
// holds 3 ASM-1 on the shelf, 1000 kg wax and 500 wicks. The work order builds 20 candles there.

const shop = uniqueShopId('warehouse');
const WO = 'wo_fair';

let connected: ConnectedShop;
let store: EmulatedShop;
let t: TestApp;
let key: string;

beforeAll(async () => {
  const json = workOrderShop(shop, [workOrder(WO, 'in_progress', { items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 20, completedQuantity: 0 }] })],
    { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 3 }], reservations: [] }) as {
    platform: { variants: { variantId: string; levels: { locationId: string; available: number }[] }[] };
  };
  json.platform.variants.find((v) => v.variantId === '44001')!.levels = [{ locationId: '101', available: 1000 }];
  json.platform.variants.find((v) => v.variantId === '44100')!.levels = [{ locationId: '101', available: 0 }];
  // The candle's storefront level follows its shelf (storefront stock `shelf`: shelf − open orders).
  (json as unknown as { boms: { bomId: string; storefrontStock?: string }[] }).boms.find((b) => b.bomId === 'BOM-1001')!.storefrontStock = 'shelf';
  connected = await startConnectedShop(shop, toDataset(json));
  ({ store, t, key } = connected);
}, 120_000);

afterAll(() => connected?.close());

const gql = graphqlCaller(() => t, () => key);
const tokenOf = async () => (await t.get(`/api/v1/work-orders/${WO}`, key)).body.data.updatedAt as string;

async function startRun(buildRunId: string, quantity: number, reworkItemIds: string[] = []) {
  const res = await t.request({ method: 'PATCH', url: `/api/v1/work-orders/${WO}/build-runs`, key, headers: { 'content-type': 'application/json' },
    payload: { expectedUpdatedAt: await tokenOf(), buildRunId, items: [{ itemId: 'woi_1', quantity }], ...(reworkItemIds.length ? { runType: 'rework', reworkItemIds } : {}) } });
  expect(res.statusCode, res.body).toBe(200);
}
async function completeRun(buildRunId: string) {
  const { failure } = only(await gql(`mutation($id: ID!, $run: ID!, $t: DateTime!) { completeBuildRun(workOrderId: $id, buildRunId: $run, expectedUpdatedAt: $t) {
    buildRun { status } ${USER_ERRORS} } }`, { id: WO, run: buildRunId, t: await tokenOf() }));
  expect(failure).toBeNull();
}
async function qcReview(buildRunId: string, approved: number, failed: number) {
  const { failure } = only(await gql(`mutation($id: ID!, $t: DateTime!, $run: ID!, $items: [QcReviewItemInput!]) {
    addQcReview(workOrderId: $id, expectedUpdatedAt: $t, buildRunId: $run, items: $items) { workOrderRecordWrite { recordId } ${USER_ERRORS} } }`,
  { id: WO, t: await tokenOf(), run: buildRunId, items: [{ itemId: 'woi_1', approvedQuantity: String(approved), failedQuantity: String(failed) }] }));
  expect(failure).toBeNull();
}
async function reworkItem(buildRunId: string, quantity: number): Promise<string> {
  const { result, failure } = only(await gql(`mutation($id: ID!, $t: DateTime!, $run: ID, $q: Decimal!) {
    addReworkItem(workOrderId: $id, expectedUpdatedAt: $t, description: "Wicks off-centre", quantity: $q, buildRunId: $run) { workOrderRecordWrite { recordId } ${USER_ERRORS} } }`,
  { id: WO, t: await tokenOf(), run: buildRunId, q: String(quantity) }));
  expect(failure).toBeNull();
  return result.recordId;
}
async function countShelf(absolute: number) {
  const { failure } = only(await gql(`mutation($input: AdjustPreassembledStockInput!) { adjustPreassembledStock(input: $input) {
    preassembledStockAdjustment { delta } ${USER_ERRORS} } }`,
  { input: { itemId: '44100', locationId: '101', absolute: String(absolute), reason: 'count', note: 'Cycle count: one candle cracked' } }));
  expect(failure).toBeNull();
}
const settle = () => connected.settle();

/** The hand-worked table of docs/work-orders.md "A day in the warehouse", row by row. */
function handWorkedTable(): Record<string, string>[] {
  const doc = readFileSync(new URL('../../docs/work-orders.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### A day in the warehouse'));
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());
  const header = cells(lines[0]!);
  return lines.slice(2).map((line) => Object.fromEntries(cells(line).map((c, i) => [header[i]!, c])));
}
const table = handWorkedTable();

/** The same columns, read from the running service. */
async function figures(): Promise<Record<string, string>> {
  const shelf = (await t.get('/api/v1/raw-materials/44100/preassembled?locationIds=101', key)).body.data.totals.quantity as number;
  const snapshot = await stockSnapshot(t.orm, shop);
  const whole = (await t.get(`/api/v1/work-orders/${WO}`, key)).body.data;
  const plan = (await t.get(`/api/v1/work-orders/${WO}/material-plan`, key)).body.data.materials as any[];
  const planned = (variantId: string) => {
    const m = plan.find((x) => x.variantId === variantId);
    return m ? `${m.required} / ${m.picked} / ${m.remaining}` : '-';
  };
  const allocation = async (variantId: string) => {
    const data = (await t.get(`/api/v1/raw-materials/${variantId}/work-order-allocation?locationIds=101`, key)).body.data;
    const h = data.levels[0]?.holders.find((x: any) => x.holderId === WO);
    return h ? `${h.allocated} / ${h.picked} / ${h.remaining}` : '-';
  };
  const wax = planned('44001');
  const wicks = planned('VMAT-VAR-0001');
  expect(await allocation('44001'), 'the allocation read agrees with the material plan (one definition)').toBe(wax);
  expect(await allocation('VMAT-VAR-0001'), 'the allocation read agrees with the material plan (one definition)').toBe(wicks);
  const reserved = (await t.get('/api/v1/raw-materials/44100/commitments?locationIds=101', key)).body.data.levels[0]?.orders ?? 0;
  // What the store shows once bomcore's outbox has run (serve runs it every second).
  await settleStorefront(t, shop);
  return {
    'candle shelf': String(shelf),
    'wick-assembly shelf': String(Number(snapshot['shelf|ASM-1|101'] ?? '0')),
    completed: String(Number(whole.items[0].completedQuantity)),
    wax, wicks,
    'orders reserve': String(reserved),
    'storefront': String(store.available('44100', '101')),
  };
}

describe(`a day in the warehouse, on ${databaseLabel} (docs/work-orders.md)`, () => {
  let orderId = '';
  const steps: [string, () => Promise<void>][] = [
    ['0.', async () => undefined],
    ['1.', () => startRun('fair-1', 10)],
    ['2.', () => completeRun('fair-1')],
    ['3.', () => qcReview('fair-1', 8, 2)],
    ['4.', async () => {
      const rework = await reworkItem('fair-1', 2);
      await startRun('fair-rw', 2, [rework]);
      await completeRun('fair-rw');
    }],
    ['5.', async () => {
      orderId = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 3 }], locationId: '101' }).id;
      await settle();
    }],
    ['6.', async () => {
      store.fulfil(orderId, { lines: [{ variantId: '44100', quantity: 3 }], locationId: '101' });
      await settle();
    }],
    ['7.', () => countShelf(6)],
  ];

  it('the table has a row for every step', () => {
    expect(table.map((row) => row.step!.split(' ')[0])).toEqual(steps.map(([n]) => n));
  });
  for (const [n, act] of steps) {
    it(`step ${n} gives the table's row`, async () => {
      await act();
      const { step, ...expected } = table.find((row) => row.step!.startsWith(`${n} `))!;
      expect(await figures(), step).toEqual(expected);
    });
  }
});
