import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/dataset/generate.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// A generated shop nobody tuned the service to: every figure below is recomputed here from the
// dataset itself with the rules of docs/datasets.md, independently of the service's SQL.
let t: TestApp;
let key: string;
let d: Dataset;
const shop = uniqueShopId('gen');
const sum = (values: (string | number)[]) => values.reduce<Decimal>((s, v) => s.plus(v), new Decimal(0)).toNumber();

beforeAll(async () => {
  t = await createTestApp();
  d = generateDataset({ materials: 150, boms: 40, depth: 2, locations: 3, workOrders: 40, orders: 30, seed: 11, shopId: shop });
  await t.load(d);
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

describe('a generated dataset', () => {
  it('list rows: inventoryQuantity, usage counts, vendors and paging follow the dataset rules', async () => {
    const res = await t.get('/api/v1/raw-materials?pageSize=1000', key);
    const data = res.body.data;
    expect(data.totalCount).toBe(d.materials.length);
    expect(data.totalPages).toBe(1);
    const variants = new Map(d.platform.variants.map((v) => [v.variantId, v]));
    const vendors = new Set<string>();
    for (const m of d.materials) {
      const row = data.items.find((r: any) => r.variantId === m.variantId);
      const vendor = m.origin === 'platform' ? variants.get(m.variantId)!.vendor : m.vendor;
      if (vendor) vendors.add(vendor);
      const expected = m.origin === 'platform' ? new Decimal(m.cachedQuantity).toNumber() : sum(m.levels.map((l) => l.available));
      expect(row.inventoryQuantity, m.variantId).toBe(expected);
      expect(row.isVirtual).toBe(m.origin === 'virtual');
      expect(row.bomUsageCount, m.variantId).toBe(d.boms.filter((b) => b.rawMaterialReferences.some((l) => l.nodeId === m.variantId)).length);
      expect(row.subAssemblyUsageCount, m.variantId).toBe(d.assemblyBills.filter((b) => b.rawMaterialReferences.some((l) => l.nodeId === m.variantId)).length);
    }
    expect(data.availableVendors).toEqual([...vendors].sort());
    const used = (await t.get('/api/v1/raw-materials?usageFilter=used&pageSize=1', key)).body.data.totalCount;
    expect(used).toBe(data.items.filter((r: any) => r.bomUsageCount + r.subAssemblyUsageCount > 0).length);
  });

  it('inventory, residual and commitments totals equal the sums of the dataset rows', async () => {
    const sample = d.materials.filter((_, i) => i % 10 === 0);
    for (const m of sample) {
      const levels = m.origin === 'platform' ? d.platform.variants.find((v) => v.variantId === m.variantId)!.levels : m.levels;
      const inv = (await t.get(`/api/v1/raw-materials/${m.variantId}/inventory`, key)).body.data;
      expect(inv.totalAvailable, m.variantId).toBe(sum(levels.map((l) => l.available)));
      const residual = (await t.get(`/api/v1/raw-materials/${m.variantId}/residual`, key)).body.data;
      for (const kind of ['buildRun', 'safetyStock'] as const) {
        expect(residual.totals[kind]).toBe(sum(d.residuals.filter((r) => r.itemId === m.variantId && r.kind === kind).map((r) => r.quantity)));
      }
      const commitments = (await t.get(`/api/v1/raw-materials/${m.variantId}/commitments`, key)).body.data;
      const mine = d.reservations.filter((r) => r.itemId === m.variantId);
      expect(commitments.totals.orders).toBe(sum(mine.flatMap((r) => (r.kind === 'order' ? [Decimal.max(new Decimal(r.quantity).minus(r.fulfilledQuantity), 0).toFixed()] : []))));
      expect(commitments.totals.safetyStock).toBe(sum(mine.flatMap((r) => (r.kind === 'safetyStock' && r.active ? [r.quantity] : []))));
    }
  });

  it('work-order allocation: picked equals the picks of open work orders\' runs that were not reversed', async () => {
    const picked = new Map<string, Decimal>();
    for (const w of d.workOrders.filter((w) => w.status !== 'completed' && w.status !== 'cancelled')) {
      for (const run of w.buildRuns.filter((r) => r.status !== 'reversed')) {
        for (const p of run.picks) picked.set(p.variantId, (picked.get(p.variantId) ?? new Decimal(0)).plus(p.quantity));
      }
    }
    const sample = [...picked.keys()].slice(0, 8);
    for (const variantId of sample) {
      const data = (await t.get(`/api/v1/raw-materials/${variantId}/work-order-allocation`, key)).body.data;
      expect(data.totals.picked, variantId).toBe(picked.get(variantId)!.toNumber());
      expect(data.totals.allocated).toBeGreaterThanOrEqual(data.totals.picked);
    }
  });
});
