import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { graphqlCaller, only, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { lastEventSequence, levelEventsSince } from '../helpers/level-events.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrderShop } from '../helpers/work-order-fixtures.ts';

// adjustPreassembledStock: a pre-assembled shelf can be counted and corrected by hand, through the
// stock ledger (adjustment history with reason and note, inventory.level_changed), exact decimals,
// never below zero.

let t: TestApp;
let key: string;
let readKey: string;
const shop = uniqueShopId('shelf-adj');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [], { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 3 }] })));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

const gql = graphqlCaller(() => t, () => key);
const ADJUST = `mutation($input: AdjustPreassembledStockInput!) { adjustPreassembledStock(input: $input) {
  preassembledStockAdjustment { adjustmentId itemId locationId before after delta reason note } ${USER_ERRORS} } }`;
const adjust = async (input: Record<string, unknown>, k = key) => only(await gql(ADJUST, { input: { reason: 'count', ...input } }, k));
const shelf = async (path: string) => (await t.get(path, key)).body.data;
const history = (itemId: string) => t.orm.em.fork().execute<any[]>(
  `select stock, variant_id, location_id, before::text, after::text, delta::text, source, reason, note from inventory_adjustments
   where shop_id = ? and variant_id = ? order by created_at, id`, [shop, itemId]);

describe('adjustPreassembledStock', () => {
  it('a count sets the shelf exactly (absolute), a delta moves it; each change is in the history with its reason and note and sends inventory.level_changed', async () => {
    const since = await lastEventSequence(t.orm, shop);
    const counted = await adjust({ itemId: 'ASM-1', locationId: '101', absolute: '7.5', note: 'Cycle count, aisle 4' });
    expect(counted.failure).toBeNull();
    expect(counted.result).toMatchObject({ itemId: 'ASM-1', locationId: '101', before: '3', after: '7.5', delta: '4.5', reason: 'count', note: 'Cycle count, aisle 4' });
    const damaged = await adjust({ itemId: 'ASM-1', locationId: '101', delta: '-0.000001', reason: 'damaged' });
    expect(damaged.result).toMatchObject({ before: '7.5', after: '7.499999', delta: '-0.000001', reason: 'damaged', note: null });
    expect((await shelf('/api/v1/assembly-bills/ASM-1/preassembled?locationIds=101')).totals.quantity).toBe(7.499999);
    expect(await history('ASM-1')).toEqual([
      { stock: 'preassembled', variant_id: 'ASM-1', location_id: '101', before: '3.000000', after: '7.500000', delta: '4.500000', source: 'api', reason: 'count', note: 'Cycle count, aisle 4' },
      { stock: 'preassembled', variant_id: 'ASM-1', location_id: '101', before: '7.500000', after: '7.499999', delta: '-0.000001', source: 'api', reason: 'damaged', note: null },
    ]);
    const events = await levelEventsSince(t.orm, shop, since, 'inventory:preassembled:ASM-1@101');
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ stock: 'preassembled', itemId: 'ASM-1', before: 3, after: 7.5, delta: 4.5, source: 'api', reason: 'count', note: 'Cycle count, aisle 4', adjustmentId: counted.result.adjustmentId }),
      expect.objectContaining({ before: 7.5, after: 7.499999, delta: -0.000001, reason: 'damaged', note: null, adjustmentId: damaged.result.adjustmentId }),
    ]);
  });

  it('a finished good is counted under its variant id; a shelf that did not exist yet starts at 0', async () => {
    const res = await adjust({ itemId: '44100', locationId: '101', delta: '2', reason: 'found' });
    expect(res.result).toMatchObject({ before: '0', after: '2', delta: '2' });
    expect((await shelf('/api/v1/raw-materials/44100/preassembled?locationIds=101')).totals.quantity).toBe(2);
  });

  it('exactly one of delta and absolute: both or neither is INVALID_INPUT naming the field', async () => {
    const both = await adjust({ itemId: 'ASM-1', locationId: '101', delta: '1', absolute: '2' });
    expect(both.failure).toMatchObject({ kind: 'userError', code: 'INVALID_INPUT', field: ['input', 'absolute'] });
    const neither = await adjust({ itemId: 'ASM-1', locationId: '101' });
    expect(neither.failure).toMatchObject({ kind: 'userError', code: 'INVALID_INPUT', field: ['input', 'delta'] });
    const negative = await adjust({ itemId: 'ASM-1', locationId: '101', absolute: '-1' });
    expect(negative.failure).toMatchObject({ code: 'INVALID_INPUT', field: ['input', 'absolute'] });
  });

  it('an unknown item or location is NOT_FOUND naming each; a malformed location id INVALID_INPUT; nothing is written', async () => {
    const before = (await history('ASM-404')).length;
    const unknown = await adjust({ itemId: 'ASM-404', locationId: '999', delta: '1' });
    expect(unknown.failure).toMatchObject({ code: 'NOT_FOUND', missing: [{ kind: 'pre-assembled item', id: 'ASM-404' }, { kind: 'location', id: '999' }] });
    const malformed = await adjust({ itemId: 'ASM-1', locationId: 'gid://x', delta: '1' });
    expect(malformed.failure).toMatchObject({ code: 'INVALID_INPUT', field: ['input', 'locationId'] });
    expect((await history('ASM-404')).length).toBe(before);
  });

  it('a shelf never goes below zero: a delta past it is CONFLICT naming delta, and the shelf and history stay as they were', async () => {
    await adjust({ itemId: 'ASM-ONLY', locationId: '101', absolute: '1' });
    const res = await adjust({ itemId: 'ASM-ONLY', locationId: '101', delta: '-1.5', reason: 'lost' });
    expect(res.failure).toMatchObject({ kind: 'userError', code: 'CONFLICT', field: ['input', 'delta'] });
    expect((await shelf('/api/v1/assembly-bills/ASM-ONLY/preassembled?locationIds=101')).totals.quantity).toBe(1);
    expect((await history('ASM-ONLY')).map((h) => h.after)).toEqual(['1.000000']);
  });

  it('a change of nothing records nothing (adjustmentId null)', async () => {
    const res = await adjust({ itemId: 'ASM-ONLY', locationId: '101', absolute: '1' });
    expect(res.result).toMatchObject({ adjustmentId: null, before: '1', after: '1', delta: '0' });
    expect((await history('ASM-ONLY')).length).toBe(1);
  });

  it('needs the write scope', async () => {
    const res = await adjust({ itemId: 'ASM-1', locationId: '101', delta: '1' }, readKey);
    expect(res.failure).toMatchObject({ kind: 'error', code: 'FORBIDDEN_SCOPE' });
  });

  it('costs a constant number of statements, whoever adjusts what', async () => {
    const counts: number[] = [];
    for (const itemId of ['ASM-1', '44100', 'ASM-ONLY']) {
      const res = await t.graphql(key, ADJUST, { input: { itemId, locationId: '101', delta: '1', reason: 'correction' } });
      expect(res.body.data.adjustPreassembledStock.userErrors).toEqual([]);
      counts.push(res.statements);
    }
    expect(new Set(counts).size).toBe(1);
  });
});
