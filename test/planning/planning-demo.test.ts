import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCsv, planJson } from '../../src/cli/plan-command.ts';
import { loadRecipeForest, type RecipeForest } from '../../src/modules/boms/engine/index.ts';
import { loadAllBillsForest } from '../../src/modules/boms/for-planning.ts';
import { planShop } from '../../src/modules/planning/planning.service.ts';
import { whereUsed } from '../../src/modules/planning/where-used.ts';
import { shopContext, countQueries } from '../helpers/bom-context.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// docs/planning.md's worked example: the demo shop `npm start` serves, planned on 2026-11-12 at the
// Main Workshop (101). The figures the page cites are checked here, through GraphQL and the CLI's
// JSON and CSV writers.

let t: TestApp;
let key: string;
const shop = uniqueShopId('plan-demo');
const demo = JSON.parse(readFileSync(new URL('../../data/demo-dataset.json', import.meta.url), 'utf8'));
const RESTOCK = 'wo_75c05337-30ca-41f7-a561-c0883fb87bc8';
const FAIR = 'wo_dba928f4-ece8-4b8c-a61d-19595284bfb3';

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset({ ...demo, shop: { ...demo.shop, id: shop } }));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

const PLAN = `query($asOf: Date, $locations: [ID!]) { planning(asOf: $asOf, locationIds: $locations) { shopId asOf
  buySuggestions { variantId locationId quantity net needBy orderBy late essential }
  makeSuggestions { itemType itemId variantId locationId quantity needBy startBy late demands { sourceType sourceId quantity needBy } otherDemandCount }
  shortages { variantId locationId required onHand allocated net needBy essential demands { sourceType sourceId quantity needBy } otherDemandCount }
  unlocated { itemId orderId quantity } } }`;

describe('docs/planning.md: the worked example on the demo shop', () => {
  it('at the Main Workshop on 2026-11-12: 10 large jars, 12 small jars, 16 lavender pours and 9 blend batches to make; nothing to buy', async () => {
    const res = await t.graphql(key, PLAN, { asOf: '2026-11-12', locations: ['101'] });
    expect(res.body.errors).toBeUndefined();
    const plan = res.body.data.planning;
    expect(plan.asOf).toBe('2026-11-12');
    expect(plan.makeSuggestions).toHaveLength(7);
    const make = (id: string) => plan.makeSuggestions.find((m: { itemId: string }) => m.itemId === id);
    expect(make('ASM-JAR-L-LAV')).toMatchObject({ itemType: 'assembly_bill', locationId: '101', quantity: '10', needBy: '2026-11-14', startBy: '2026-11-14', late: false,
      demands: [{ sourceType: 'work_order', sourceId: RESTOCK, quantity: '12', needBy: '2026-11-14' }, { sourceType: 'work_order', sourceId: FAIR, quantity: '6', needBy: '2026-12-01' }] });
    expect(make('ASM-JAR-S-LAV')).toMatchObject({ quantity: '12', needBy: '2026-11-14' });
    expect(make('ASM-LAV-POUR')).toMatchObject({ quantity: '16',
      demands: [{ sourceType: 'make', sourceId: 'ASM-JAR-L-LAV', quantity: '10', needBy: '2026-11-14' }, { sourceType: 'make', sourceId: 'ASM-JAR-S-LAV', quantity: '6', needBy: '2026-11-14' }] });
    expect(make('ASM-SOY-BLEND').quantity).toBe('9');
    expect(make('ASM-SOY-BLEND').demands.map((d: { quantity: string }) => d.quantity)).toEqual(['6.4', '1.5', '1']);
    expect(make('ASM-CEDAR-POUR').quantity).toBe('6');
    expect(make('ASM-SEA-POUR').quantity).toBe('4');
    expect([plan.buySuggestions, plan.shortages, plan.unlocated]).toEqual([[], [], []]);
  });

  it('the CLI writes the same plan: exact JSON numbers in the issue\'s shape, and a CSV with a header', async () => {
    const written = await planShop(shopContext(t.orm, shop), { asOf: '2026-11-12', locationIds: ['101'] });
    const json = JSON.parse(JSON.stringify(planJson(written)));
    expect(Object.keys(json)).toEqual(['shopId', 'asOf', 'buySuggestions', 'makeSuggestions', 'shortages', 'unlocated']);
    expect(json.makeSuggestions.find((m: { itemId: string }) => m.itemId === 'ASM-SOY-BLEND')).toEqual({
      itemType: 'assembly_bill', itemId: 'ASM-SOY-BLEND', variantId: null, locationId: '101', quantity: 9, needBy: '2026-11-14', startBy: '2026-11-14', late: false,
    });
    expect(planCsv(written)).toBe('variantId,locationId,quantity,net,needBy,orderBy,late,essential\r\n');
  });

  it('a plan is a bounded number of statements, whatever the shop (one snapshot of set-based reads)', async () => {
    const { count } = await countQueries(() => planShop(shopContext(t.orm, shop), { asOf: '2026-11-12' }));
    expect(count).toBeLessThanOrEqual(16);
  });

  it('rule: the plan\'s read of every bill of the shop (tables read whole) is the recipe walk\'s forest from every bill: bills, lines, rules and overrides', async () => {
    const ctx = shopContext(t.orm, shop);
    const whole = await loadAllBillsForest(ctx);
    const walked = await loadRecipeForest(ctx, [...whole.bills.values()].map((b) => b.key));
    // Map order aside (rules are looked up by location), the same content.
    const content = (forest: RecipeForest) => [...forest.bills].sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, bill]) => [id, { ...bill, rules: [...bill.rules].sort(([a], [b]) => (a < b ? -1 : 1)) }]);
    expect(whole.bills.size).toBe(demo.boms.length + demo.assemblyBills.length);
    expect(content(whole)).toEqual(content(walked));
    const overrides = [...whole.bills.values()].flatMap((b) => [...b.rules.values()].flat());
    expect(overrides.map((o) => o.action)).toEqual(expect.arrayContaining(['add', 'remove', 'replace', 'adjust']));
    expect(overrides.some((o) => o.introducesAssembly)).toBe(true);
  });

  it('a date that is not YYYY-MM-DD is INVALID_INPUT naming asOf', async () => {
    await expect(planShop(shopContext(t.orm, shop), { asOf: '2026-02-30' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const res = await t.graphql(key, PLAN, { asOf: '12/11/2026' });
    expect(res.body.errors[0].message).toContain('YYYY-MM-DD');
  });
});

describe('where-used on the demo shop', () => {
  const WHERE = `query($loc: ID) { rawMaterial(variantId: "44001") { whereUsed(locationId: $loc) { ownerType ownerId path quantity } }
    assemblyBill(assemblyId: "ASM-LAV-POUR") { whereUsed { ownerType ownerId path quantity } } }`;

  it('every bill that uses an item at any depth, one row per path, with the quantity per unit of that bill (waste included)', async () => {
    const res = await t.graphql(key, WHERE, {});
    expect(res.body.errors).toBeUndefined();
    const pour = res.body.data.assemblyBill.whereUsed;
    // ASM-LAV-POUR: 1 per large jar, 0.5 per small jar; the jars are 1 per candle.
    expect(pour).toEqual(expect.arrayContaining([
      { ownerType: 'sub_assembly', ownerId: 'ASM-JAR-L-LAV', path: ['ASM-JAR-L-LAV', 'ASM-LAV-POUR'], quantity: '1' },
      { ownerType: 'sub_assembly', ownerId: 'ASM-JAR-S-LAV', path: ['ASM-JAR-S-LAV', 'ASM-LAV-POUR'], quantity: '0.5' },
      { ownerType: 'bom', ownerId: 'BOM-1001', path: ['BOM-1001', 'ASM-JAR-L-LAV', 'ASM-LAV-POUR'], quantity: '1' },
      { ownerType: 'bom', ownerId: 'BOM-1002', path: ['BOM-1002', 'ASM-JAR-S-LAV', 'ASM-LAV-POUR'], quantity: '0.5' },
    ]));
    // Soy wax 44001: 0.9 kg at 2 % waste per kg of blend = 0.918; per lavender pour (0.4 kg of blend) 0.3672.
    const wax = res.body.data.rawMaterial.whereUsed;
    expect(wax).toEqual(expect.arrayContaining([
      { ownerType: 'sub_assembly', ownerId: 'ASM-SOY-BLEND', path: ['ASM-SOY-BLEND', '44001'], quantity: '0.918' },
      { ownerType: 'sub_assembly', ownerId: 'ASM-LAV-POUR', path: ['ASM-LAV-POUR', 'ASM-SOY-BLEND', '44001'], quantity: '0.3672' },
      { ownerType: 'bom', ownerId: 'BOM-1001', path: ['BOM-1001', 'ASM-JAR-L-LAV', 'ASM-LAV-POUR', 'ASM-SOY-BLEND', '44001'], quantity: '0.3672' },
    ]));
  });

  it('where-used reads the recipe graph in one statement, and once per request however many items ask', async () => {
    const ctx = shopContext(t.orm, shop);
    const first = await countQueries(() => whereUsed(ctx, { kind: 'raw', id: '44001' }, null));
    const more = await countQueries(async () => {
      await whereUsed(ctx, { kind: 'sub', id: 'ASM-LAV-POUR' }, '103');
      await whereUsed(ctx, { kind: 'raw', id: '44007' }, '101');
    });
    expect([first.count, more.count]).toEqual([1, 0]);
    expect(first.result.length).toBeGreaterThan(5);
  });
});

describe('what-if on the demo shop', () => {
  const WHAT_IF = `query($bom: String!, $q: Decimal!, $loc: ID!, $by: Date!) { planningWhatIf(bomId: $bom, quantity: $q, locationId: $loc, needBy: $by, asOf: "2026-11-12") {
    asOf extraMakes { itemType itemId locationId quantity needBy startBy late } extraBuys { variantId locationId quantity net needBy orderBy late essential }
    leftShort { itemType itemId locationId sourceType sourceId needBy short } } }`;

  it('40 large candles at the Main Workshop by 2026-11-13: 16 to make (2 on the shelf, 22 the work orders will deliver), and the restock\'s jars it takes from the shelf', async () => {
    const res = await t.graphql(key, WHAT_IF, { bom: 'BOM-1001', q: '40', loc: '101', by: '2026-11-13' });
    expect(res.body.errors).toBeUndefined();
    const answer = res.body.data.planningWhatIf;
    expect(answer.extraMakes).toEqual(expect.arrayContaining([
      { itemType: 'bom', itemId: 'BOM-1001', locationId: '101', quantity: '16', needBy: '2026-11-13', startBy: '2026-11-13', late: false },
      { itemType: 'assembly_bill', itemId: 'ASM-JAR-L-LAV', locationId: '101', quantity: '16', needBy: '2026-11-13', startBy: '2026-11-13', late: false },
    ]));
    // The new candles' jars (needed 11-13) take the 8 jars on the shelf before the restock's (11-14).
    expect(answer.leftShort).toContainEqual({ itemType: 'assembly_bill', itemId: 'ASM-JAR-L-LAV', locationId: '101', sourceType: 'work_order', sourceId: RESTOCK, needBy: '2026-11-14', short: '8' });
  });

  it('an unknown BOM is NOT_FOUND, a quantity of 0 INVALID_INPUT', async () => {
    const unknown = await t.graphql(key, WHAT_IF, { bom: 'BOM-9999', q: '1', loc: '101', by: '2026-11-13' });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const zero = await t.graphql(key, WHAT_IF, { bom: 'BOM-1001', q: '0', loc: '101', by: '2026-11-13' });
    expect(zero.body.errors[0].extensions.code).toBe('INVALID_INPUT');
  });
});
