import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.ts';
import { createApiKey, authenticate } from '../../src/modules/auth/keys.ts';
import { exportDataset } from '../../src/dataset/export.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { serializeDataset } from '../../src/dataset/serialize.ts';
import { parseDatasetText, validateDataset } from '../../src/dataset/parse.ts';
import { datasetJson, toDataset, workOrderJson } from '../helpers/dataset-factory.ts';
import { databaseLabel, openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';

let orm: Orm;
beforeAll(async () => {
  orm = await openTestOrm();
});
afterAll(() => orm.close());

function richDataset(shopId: string) {
  return toDataset(datasetJson(shopId, {
    locationRules: [{ ownerType: 'bom', ownerId: 'BOM-1001', locationId: '102', overrides: [
      { action: 'replace', nodeId: '44001', replacementNodeId: 'VMAT-VAR-0001', quantity: 0.5 },
      { action: 'remove', nodeId: 'ASM-1' },
    ] }],
    preassembled: [{ itemId: '44100', locationId: '101', quantity: 5 }, { itemId: 'ASM-1', locationId: '101', quantity: 3 }],
    residuals: [{ itemId: '44001', locationId: '101', kind: 'buildRun', quantity: 0.2 }],
    reservations: [
      { kind: 'order', itemId: '44001', locationId: '101', orderId: '5001', quantity: 3, fulfilledQuantity: 1 },
      { kind: 'safetyStock', itemId: '44001', locationId: '101', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 4, active: true },
    ],
    flows: [{ flowId: 'flow_weekly', name: 'Weekly batch' }],
    tasks: [{ taskId: 'todo_42', title: 'Restock wax' }],
    workOrders: [{
      ...workOrderJson('wo_1', 'in_progress', 'asg_ana'), tags: ['fair', 'rush "x"'], sourceOrderIds: ['5001'], dueDate: '2026-12-01',
      plannedLaborCost: 100.25, sourceType: 'orders',
      items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 10, completedQuantity: 0 }],
      manualMaterials: [{ variantId: '44001', quantity: 2, locationId: null, note: 'spare' }],
      buildRuns: [{ buildRunId: 'run-a', status: 'started', runType: 'production', startedAt: '2026-11-02T10:00:00.000Z', completedAt: null,
        items: [{ itemId: 'woi_1', quantity: 4 }], picks: [{ variantId: '44001', locationId: '101', quantity: 1.68 }] }],
      lifecycleEvents: [{ eventId: 'evt_1', fromStatus: 'ready', toStatus: 'in_progress', createdAt: '2026-11-02T10:00:00.000Z' }],
    }],
    billVersions: [{ ownerType: 'bom', ownerId: 'BOM-1001', version: 1, state: 'ready', savedAt: '2026-11-01T09:00:00.000Z', savedBy: 'Ana',
      trigger: 'manual', contentHash: 'sha256:abc', changes: { recipeFields: 1, materials: 2, locationRules: 0, overrides: 1 } }],
  }));
}

describe(`dataset load and export on ${databaseLabel}`, () => {
  it('export gives back what was loaded, exactly (decimals, nulls, arrays, timestamps)', async () => {
    const shopId = uniqueShopId('ds-rt');
    await loadDataset(orm.em, richDataset(shopId));
    const exported = await exportDataset(orm.em, shopId);
    expect(exported.materials.find((m) => m.variantId === '44001')).toEqual({
      origin: 'platform', variantId: '44001', unit: 'kg', isNonEssentialMaterial: false, specifications: 'Food-grade', cachedQuantity: '43',
    });
    expect(exported.materials.find((m) => m.variantId === 'VMAT-VAR-0001')).toMatchObject({ unitCost: '0.05', levels: [{ locationId: '101', available: '500.5' }] });
    expect(exported.boms[0]!.rawMaterialReferences).toEqual([{ nodeId: '44001', quantity: '0.4', wastePercentage: '5' }]);
    expect(exported.workOrders[0]).toMatchObject({ tags: ['fair', 'rush "x"'], sourceOrderIds: ['5001'], dueDate: '2026-12-01', plannedLaborCost: '100.25', updatedAt: '2026-11-02T10:00:00.000Z' });
    expect(exported.workOrders[0]!.buildRuns[0]!.picks).toEqual([{ variantId: '44001', locationId: '101', quantity: '1.68' }]);
    expect(exported.reservations).toHaveLength(2);
    expect(exported.locationRules[0]!.overrides[0]).toEqual({ action: 'replace', nodeId: '44001', replacementNodeId: 'VMAT-VAR-0001', quantity: '0.5', wastePercentage: null });
  });

  it('loading an export gives the same export, and the export is a valid dataset file', async () => {
    const shopId = uniqueShopId('ds-idem');
    await loadDataset(orm.em, richDataset(shopId));
    const first = serializeDataset(await exportDataset(orm.em, shopId));
    const reparsed = parseDatasetText(first);
    expect(reparsed.ok).toBe(true);
    await loadDataset(orm.em, (reparsed as { ok: true; dataset: any }).dataset);
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(first);
  });

  it('archivedAt of materials (both origins), cost factors, assembly bills and BOMs survives export and load; files without archived rows do not carry the field', async () => {
    const shopId = uniqueShopId('ds-arch');
    const at = '2026-11-20T08:00:00.000Z';
    const json = datasetJson(shopId) as any;
    for (const row of [json.materials[0], json.materials[1], json.costFactors[0], json.assemblyBills[0], json.boms[0]]) row.archivedAt = at;
    await loadDataset(orm.em, toDataset(json));
    const [stored] = await orm.em.fork().execute<{ n: string }[]>(
      `select (select count(*) from materials where shop_id = ? and archived_at is not null)
            + (select count(*) from cost_factors where shop_id = ? and archived_at is not null)
            + (select count(*) from assembly_bills where shop_id = ? and archived_at is not null)
            + (select count(*) from boms where shop_id = ? and archived_at is not null) as n`, [shopId, shopId, shopId, shopId]);
    expect(Number(stored!.n)).toBe(5);
    const exported = await exportDataset(orm.em, shopId);
    expect([...exported.materials.map((m) => m.archivedAt), exported.costFactors[0]!.archivedAt, exported.assemblyBills[0]!.archivedAt, exported.boms[0]!.archivedAt])
      .toEqual([at, at, at, at, at]);
    const text = serializeDataset(exported);
    const reparsed = parseDatasetText(text);
    expect(reparsed.ok).toBe(true);
    await loadDataset(orm.em, (reparsed as { ok: true; dataset: any }).dataset);
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(text);

    const plain = uniqueShopId('ds-plain');
    await loadDataset(orm.em, toDataset(datasetJson(plain)));
    expect(serializeDataset(await exportDataset(orm.em, plain))).not.toContain('archivedAt');
  });

  it('loading the same dataset twice gives the same state (replace, not append)', async () => {
    const shopId = uniqueShopId('ds-twice');
    await loadDataset(orm.em, richDataset(shopId));
    const once = serializeDataset(await exportDataset(orm.em, shopId));
    await loadDataset(orm.em, richDataset(shopId));
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(once);
  });

  it('a load that fails in the database writes nothing: the previous state and other shops stay as they were', async () => {
    const shopId = uniqueShopId('ds-fail');
    const other = uniqueShopId('ds-other');
    await loadDataset(orm.em, richDataset(shopId));
    await loadDataset(orm.em, richDataset(other));
    const before = serializeDataset(await exportDataset(orm.em, shopId));
    const broken = richDataset(shopId);
    broken.shop.name = 'Renamed';
    // Bypasses the validator on purpose: a duplicate key fails only inside the transaction.
    broken.assignees.push({ ...broken.assignees[0]! });
    await expect(loadDataset(orm.em, broken)).rejects.toThrow();
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(before);
    expect((await exportDataset(orm.em, other)).assignees).toHaveLength(3);
  });

  it('API keys survive a re-load of their shop', async () => {
    const shopId = uniqueShopId('ds-keys');
    await loadDataset(orm.em, richDataset(shopId));
    const key = await createApiKey(orm.em.fork(), { shopId, scopes: ['read'] });
    await loadDataset(orm.em, richDataset(shopId));
    expect(await authenticate(orm.em.fork(), `Bearer ${key.key}`)).toMatchObject({ shopId });
  });

  it('names up to their 255-character maximum, in 4-byte characters too, load and export unchanged (input limits)', async () => {
    const shopId = uniqueShopId('ds-long');
    const json = datasetJson(shopId) as any;
    json.platform.locations[0].name = 'L'.repeat(255);
    json.platform.variants[0].productName = '🕯'.repeat(255);
    await loadDataset(orm.em, toDataset(json));
    const exported = await exportDataset(orm.em, shopId);
    expect(exported.platform.locations[0]!.name).toBe('L'.repeat(255));
    expect(exported.platform.variants[0]!.productName).toBe('🕯'.repeat(255));
  });

  it('a name one character over its maximum is refused by validation with its path, before the database', () => {
    const json = datasetJson('x') as any;
    json.platform.variants[0].productName = 'P'.repeat(256);
    const result = validateDataset(json);
    expect(result.ok).toBe(false);
    expect((result as any).errors).toContainEqual({ path: '$.platform.variants[0].productName', message: 'must be at most 255 characters, got 256' });
  });

  it('a text over 10,000 characters is refused by validation with its path, before the database', () => {
    const json = datasetJson('x') as any;
    json.platform.locations[1].name = 'L'.repeat(10_001);
    const result = validateDataset(json);
    expect(result.ok).toBe(false);
    expect((result as any).errors).toContainEqual({ path: '$.platform.locations[1].name', message: 'must be at most 10000 characters, got 10001' });
  });

  it('analyzes every table it changed once the load has committed: last_analyze is set, so the first requests are planned on real statistics', async () => {
    const shopId = uniqueShopId('ds-analyze');
    const lastAnalyzed = async (tables: readonly string[]) => new Map((await orm.em.fork().execute<{ relname: string; last_analyze: Date | string | null }[]>(
      'select relname, last_analyze from pg_stat_user_tables where relname in (?)', [[...tables]])).map((r) => [r.relname, r.last_analyze]));
    const staleSince = async (tables: readonly string[], since: Date) => {
      const analyzed = await lastAnalyzed(tables);
      return tables.filter((table) => { const at = analyzed.get(table); return at === null || at === undefined || new Date(at).getTime() < since.getTime(); });
    };
    const [{ started }] = await orm.em.fork().execute<[{ started: Date }]>('select now() as started');
    const report = await loadDataset(orm.em, richDataset(shopId));
    expect(report.analyzed).toEqual(expect.arrayContaining([...Object.keys(report.rows), 'shops', 'bill_costs', 'bom_list_entries']));
    expect(report.analyzed).toEqual(expect.arrayContaining(['materials', 'material_levels', 'material_quantities', 'platform_levels', 'work_orders', 'recipe_lines']));
    expect(await staleSince(report.analyzed, new Date(started))).toEqual([]);
    expect(report.analyzeError).toBeUndefined();

    // Reloaded without its work orders: the emptied tables changed too, and are analyzed again.
    const [{ again }] = await orm.em.fork().execute<[{ again: Date }]>('select now() as again');
    const reload = await loadDataset(orm.em, toDataset(datasetJson(shopId)));
    expect(reload.rows.work_orders).toBeUndefined();
    expect(reload.analyzed).toEqual(expect.arrayContaining(['work_orders', 'build_runs', 'reservations']));
    expect(await staleSince(reload.analyzed, new Date(again))).toEqual([]);
  });

  it.runIf(usingPostgres)('a failed ANALYZE after the commit does not fail the load: the data is in, the report says why statistics were not refreshed', async () => {
    const { Client } = await import('pg');
    const { openOrm } = await import('../../src/db/orm.ts');
    const { entities } = await import('../../src/modules/entities.ts');
    // Another session holds the lock ANALYZE needs on `shops`; this ORM gives up on a statement after 1 s.
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    const impatient = await openOrm({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://', dbReadTimeoutMs: 1000 }, entities as never);
    try {
      await holder.query('begin');
      await holder.query('lock table shops in share update exclusive mode');
      const shopId = uniqueShopId('ds-analyze-fails');
      const report = await loadDataset(impatient.em, toDataset(datasetJson(shopId)));
      expect(report.analyzeError).toBeTruthy();
      await holder.query('rollback');
      expect((await exportDataset(orm.em.fork(), shopId)).shop.id).toBe(shopId);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
      await impatient.close();
    }
  });

  it('exporting an unknown shop is NOT_FOUND', async () => {
    await expect(exportDataset(orm.em, 'no-such-shop')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe(`migrations on ${databaseLabel}`, () => {
  it('the migrated schema is exactly what the entities describe (no pending diff)', async () => {
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: true });
    expect(diff.trim()).toBe('');
  });

  it('migrating again applies nothing', async () => {
    const { migrate } = await import('../../src/db/orm.ts');
    expect(await migrate(orm)).toEqual([]);
  });

  // PGlite has no JIT compiler, so this rule only has a subject on a PostgreSQL server.
  if (usingPostgres) {
    it('every pooled connection runs with JIT off (a recursive recipe walk must not pay ~0.5 s of compilation)', async () => {
      // Four transactions at once hold four pooled connections, so more than the first is checked.
      const settings = await Promise.all(Array.from({ length: 4 }, () => orm.em.fork().transactional(async (em) =>
        (await em.execute<{ jit: string }[]>(`select current_setting('jit') as jit, pg_sleep(0.05)::text as slept`))[0]!.jit)));
      expect(settings).toEqual(['off', 'off', 'off', 'off']);
    });
  }
});
