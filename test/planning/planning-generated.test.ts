import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../../src/dataset/prng.ts';
import { computePlan } from '../../src/modules/planning/engine.ts';
import { inPlanSnapshot } from '../../src/modules/planning/planning.service.ts';
import type { PlanInput } from '../../src/modules/planning/plan-input.ts';
import { ZERO } from '../../src/kernel/numbers/index.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { shopContext } from '../helpers/bom-context.ts';
import { oraclePlan } from '../helpers/planning-oracle.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Generated shops (seeded): each dataset holds SHOPS_PER_FILE small shops that share nothing (their
// own locations, materials, bills, orders and work orders), so one load and one plan are thousands
// of independent small plans. The real planner (GraphQL `planning`) must agree with the brute-force
// planner of test/helpers/planning-oracle.ts to the last digit, and the decisions' invariants must
// hold on every plan.

const FILES = Number(process.env.PLAN_FILES ?? 8);
const SHOPS_PER_FILE = 250;
const AS_OF = '2026-11-12';

type Json = Record<string, any>;
const day = (rng: Prng) => `2026-11-${String(rng.int(5, 25)).padStart(2, '0')}`;
const qty = (rng: Prng, max: number) => (rng.chance(0.3) ? Number(rng.decimal(0.25, max, 2)) : rng.int(1, max));

/** One small shop, `k`, into the file's lists. */
function smallShop(rng: Prng, k: number, f: Json) {
  const locs = [String(100000 + k * 3), String(100001 + k * 3)];
  for (const l of locs) f.platform.locations.push({ id: l, name: `L${l}` });
  const mats: string[] = [];
  for (let i = 0; i < rng.int(2, 4); i++) {
    const id = `VMAT-VAR-${k}-${i}`;
    mats.push(id);
    f.materials.push({
      variantId: id, productId: `VMAT-PROD-${k}-${i}`, inventoryItemId: `VMAT-INV-${k}-${i}`, productName: `M${k}.${i}`, unit: 'pcs', unitCost: 1,
      isNonEssentialMaterial: rng.chance(0.15),
      levels: locs.filter(() => rng.chance(0.7)).map((l) => ({ locationId: l, available: rng.chance(0.1) ? -rng.int(1, 5) : qty(rng, 30) })),
      ...(rng.chance(0.5) ? { leadTimeDays: rng.int(0, 6) } : {}),
      ...(rng.chance(0.3) ? { minimumOrderQuantity: rng.int(1, 40) } : {}),
      ...(rng.chance(0.4) ? { orderMultiple: rng.pick([0.5, 3, 10, 12.5]) } : {}),
    });
  }
  const raw = () => ({ nodeId: rng.pick(mats), quantity: qty(rng, 4), wastePercentage: rng.chance(0.3) ? rng.pick([5, 12.5, 33]) : 0 });
  const asms: string[] = [];
  for (let i = 0; i < rng.int(0, 3); i++) {
    const id = `ASM-${k}-${i}`;
    const subs = asms.length > 0 && rng.chance(0.5) ? [{ nodeId: rng.pick(asms), quantity: rng.int(1, 3) }] : [];
    f.assemblyBills.push({ assemblyId: id, name: id, onlyConsumePreassembled: rng.chance(0.15), rawMaterialReferences: [raw()], subAssemblyReferences: subs, costFactorReferences: [],
      ...(rng.chance(0.5) ? { leadTimeDays: rng.int(0, 3) } : {}) });
    asms.push(id);
  }
  const goods: string[] = [];
  const bomIds: string[] = [];
  for (let i = 0; i < rng.int(1, 2); i++) {
    const bomId = `BOM-${k * 10 + i + 1}`;
    const variantId = rng.chance(0.9) ? String(7_000_000 + k * 10 + i) : null;
    if (variantId) {
      goods.push(variantId);
      f.platform.variants.push({ variantId, productId: variantId, inventoryItemId: variantId, productName: `G${variantId}`, variantName: null, sku: null, vendor: null,
        price: 10, cost: null, imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null, levels: [] });
    }
    const subs = asms.length > 0 ? rng.pickDistinct(asms, rng.int(0, Math.min(2, asms.length))).map((a) => ({ nodeId: a, quantity: qty(rng, 3) })) : [];
    f.boms.push({ bomId, name: bomId, status: rng.chance(0.8) ? 'active' : 'inactive', variantId, rawMaterialReferences: [raw()], subAssemblyReferences: subs,
      costFactorReferences: [], ...(rng.chance(0.5) ? { leadTimeDays: rng.int(0, 4) } : {}) });
    bomIds.push(bomId);
    if (rng.chance(0.3)) {
      const bom = f.boms[f.boms.length - 1];
      const node = bom.rawMaterialReferences[0].nodeId;
      const override = rng.pick([
        { action: 'adjust', nodeId: node, quantity: qty(rng, 5), wastePercentage: null },
        { action: 'remove', nodeId: node },
        { action: 'add', nodeId: rng.pick(mats), quantity: qty(rng, 2), wastePercentage: 0 },
        ...(asms.length > 0 ? [{ action: 'add', nodeId: rng.pick(asms), quantity: 1, wastePercentage: 0 }] : []),
      ]);
      const lines = new Set([...bom.rawMaterialReferences, ...bom.subAssemblyReferences].map((l: Json) => l.nodeId));
      if (!(override.action === 'add' && lines.has(override.nodeId))) f.locationRules.push({ ownerType: 'bom', ownerId: bomId, locationId: rng.pick(locs), overrides: [override] });
    }
  }
  for (const item of [...goods, ...asms]) for (const l of locs) if (rng.chance(0.3)) f.preassembled.push({ itemId: item, locationId: l, quantity: rng.int(1, 6) });
  const orders: string[] = [];
  for (let i = 0; i < rng.int(0, 3); i++) {
    const orderId = String(9_000_000 + k * 10 + i);
    const item = rng.pick([...goods, ...goods, ...asms, ...mats]);
    f.platform.orders.push({ orderId, name: `#${orderId}`, lineItems: [{ variantId: goods[0] ?? String(7_000_000), productId: null, sku: null, title: 't', quantity: 1 }] });
    if (!goods[0]) continue;
    orders.push(orderId);
    const quantity = rng.int(1, 8);
    f.reservations.push({ kind: 'order', itemId: item, locationId: rng.pick(locs), orderId, quantity, fulfilledQuantity: rng.chance(0.3) ? rng.int(0, quantity) : 0 });
  }
  for (let i = 0; i < rng.int(0, 1); i++) {
    const owner = rng.pick(bomIds);
    f.reservations.push({ kind: 'safetyStock', itemId: rng.pick([...mats, ...asms]), locationId: rng.pick(locs), ownerType: 'bom', ownerId: owner, quantity: qty(rng, 6), active: rng.chance(0.7) });
  }
  for (let i = 0; i < rng.int(0, 2); i++) {
    const items: Json[] = [];
    const n = rng.int(1, 2);
    for (let j = 0; j < n; j++) {
      const asBom = asms.length === 0 || rng.chance(0.6);
      const quantity = rng.int(1, 10);
      items.push({ itemId: `woi_${j}`, ownerType: asBom ? 'bom' : 'sub_assembly', ownerId: asBom ? rng.pick(bomIds) : rng.pick(asms), quantity, completedQuantity: rng.chance(0.3) ? rng.int(0, quantity) : 0 });
    }
    const Q = items.reduce((s, x) => s + x.quantity, 0);
    const runs = rng.chance(0.5) ? [{
      buildRunId: `run_${i}`, status: rng.pick(['started', 'completed', 'reversed']), runType: rng.chance(0.8) ? 'production' : 'rework', startedAt: '2026-11-02T10:00:00.000Z',
      items: [{ itemId: 'woi_0', quantity: rng.int(1, items[0]!.quantity) }], picks: [],
    }] : [];
    for (const r of runs) (r as Json).completedAt = r.status === 'started' ? null : '2026-11-03T10:00:00.000Z';
    const production = rng.chance(0.85) ? rng.pick(locs) : null;
    f.workOrders.push({
      workOrderId: `wo_${k}_${i}`, name: `WO ${k}.${i}`, status: rng.pick(['draft', 'ready', 'in_progress', 'paused', 'quality_control', 'qc_approved', 'completed', 'cancelled']),
      priority: 'normal', dueDate: rng.chance(0.7) ? day(rng) : null, productionLocationId: production,
      defaultConsumptionLocationId: rng.chance(0.3) ? rng.pick(locs) : null, sourceType: 'empty',
      sourceOrderIds: orders.length > 0 && rng.chance(0.3) ? [rng.pick(orders)] : [],
      createdAt: `2026-11-01T09:00:${String(rng.int(10, 59))}.000Z`, updatedAt: '2026-11-05T09:00:00.000Z', items,
      // Manual lines are multiples of Q, so line × (Q − started) / Q is a finite decimal (the oracle's exact share).
      manualMaterials: rng.chance(0.4) ? [{ variantId: rng.pick(mats), quantity: Q * rng.int(1, 2), locationId: rng.chance(0.5) ? rng.pick(locs) : null, note: null }] : [],
      buildRuns: runs,
    });
  }
}

function generatedFile(seed: number, shopId: string): Json {
  const rng = new Prng(seed);
  const f: Json = {
    formatVersion: 1, shop: { id: shopId, name: shopId, settings: { allowNegativeInventory: true, materialRequirementsMetafield: false } },
    platform: { locations: [], variants: [], orders: [] }, materials: [], costFactors: [], assemblyBills: [], boms: [], locationRules: [], preassembled: [],
    residuals: [], reservations: [], assignees: [], flows: [], tasks: [], workOrders: [], billVersions: [],
  };
  for (let k = 0; k < SHOPS_PER_FILE; k++) smallShop(rng, k, f);
  return f;
}

const PLAN = `query($asOf: Date) { planning(asOf: $asOf) { asOf
  buySuggestions { variantId locationId quantity net needBy orderBy late essential }
  makeSuggestions { itemType itemId variantId locationId quantity needBy startBy late demands { sourceType sourceId quantity needBy } otherDemandCount }
  shortages { variantId locationId required onHand allocated net needBy essential demands { sourceType sourceId quantity needBy } otherDemandCount } } }`;

let t: TestApp;
const files = Array.from({ length: FILES }, (_, i) => ({ shopId: uniqueShopId(`plan-gen-${i}`), json: generatedFile(1000 + i, '') }));
const inputs: PlanInput[] = [];
let totals = { makes: 0, buys: 0, shortages: 0 };

beforeAll(async () => {
  t = await createTestApp();
}, 120_000);
afterAll(() => t.close());

describe(`planning agrees with the brute-force planner on ${FILES * SHOPS_PER_FILE} generated small shops`, () => {
  it('every buy, make and shortage row, to the last digit', async () => {
    for (const file of files) {
      file.json.shop.id = file.shopId;
      let at = Date.now();
      const lap = (what: string) => { if (process.env.PLAN_TIMING) console.log(what, Date.now() - at); at = Date.now(); };
      const dataset = toDataset(file.json);
      lap('validate');
      await t.load(dataset);
      lap('load');
      const key = await t.createKey(file.shopId, ['read']);
      const res = await t.graphql(key, PLAN, { asOf: AS_OF });
      lap('plan');
      expect(res.body.errors).toBeUndefined();
      const expected = oraclePlan(dataset, AS_OF);
      lap('oracle');
      expect(res.body.data.planning).toEqual(expected);
      totals = { makes: totals.makes + expected.makeSuggestions.length, buys: totals.buys + expected.buySuggestions.length, shortages: totals.shortages + expected.shortages.length };
      inputs.push(await inPlanSnapshot(shopContext(t.orm, file.shopId), (input) => input));
    }
    // The generated shops exercise every kind of row.
    expect(totals.makes).toBeGreaterThan(200);
    expect(totals.buys).toBeGreaterThan(200);
  }, 120_000);

  it('invariants: allocated ≤ onHand + receipts, allocated + net = required, pegged quantities sum to required', () => {
    expect(inputs.length).toBe(FILES);
    for (const input of inputs) {
      const plan = computePlan(input, AS_OF);
      for (const r of plan.raws) {
        expect(r.allocated.lte(r.onHand)).toBe(true);
        expect(r.allocated.plus(r.net).eq(r.required)).toBe(true);
        expect(r.demands.reduce((s, d) => s.plus(d.quantity), ZERO).eq(r.required)).toBe(true);
      }
      for (const m of plan.makes) {
        expect(m.allocated.plus(m.net).eq(m.required)).toBe(true);
        expect(m.demands.reduce((s, d) => s.plus(d.quantity), ZERO).eq(m.required)).toBe(true);
        expect(m.quantity.gte(m.net) && m.quantity.minus(m.net).lt(1)).toBe(true);
      }
    }
  });

  it('invariant: the buy suggestions added to the levels and the make suggestions to the shelves, a second plan has no shortage and suggests nothing', () => {
    for (const input of inputs) {
      const plan = computePlan(input, AS_OF);
      const levels = new Map([...input.levels].map(([l, m]) => [l, new Map([...m].map(([v, q]) => [v, q.isNegative() ? ZERO : q]))]));
      const shelves = new Map([...input.shelves].map(([l, m]) => [l, new Map(m)]));
      const bump = (grid: typeof levels, location: string, item: string, q: typeof ZERO) => {
        const at = grid.get(location) ?? new Map();
        grid.set(location, at);
        at.set(item, (at.get(item) ?? ZERO).plus(q));
      };
      for (const b of plan.buys) bump(levels, b.locationId, b.variantId, b.quantity);
      for (const m of plan.makes) bump(shelves, m.locationId, m.itemType === 'bom' ? m.variantId! : m.itemId, m.quantity);
      const again = computePlan({ ...input, levels, shelves }, AS_OF);
      expect(again.raws.filter((r) => r.net.gt(0))).toEqual([]);
      expect([again.buys.length, again.makes.length]).toEqual([0, 0]);
    }
  });

  it('invariant: a shop with no open demand plans nothing', () => {
    for (const input of inputs) {
      const plan = computePlan({ ...input, orders: [], safetyStock: [], workOrders: [] }, AS_OF);
      expect([plan.raws.length, plan.buys.length, plan.makes.length, plan.unlocated.length]).toEqual([0, 0, 0, 0]);
    }
  });
});
