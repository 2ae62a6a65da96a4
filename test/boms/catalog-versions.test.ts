import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillVersionFiller } from '../../src/modules/boms/bill-version-filler.ts';
import { fillPendingBillVersions } from '../../src/modules/boms/bill-version-write.ts';
import { countQueries } from '../helpers/bom-context.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { gql, ok } from '../helpers/catalog-helpers.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

// Bill versions of catalogue saves: the save commits a pending version with the bill's frozen
// content; the fill step (the filler's pass, run here explicitly) computes the hash and the change
// summary and makes it readable.

let t: TestApp;
const shop = uniqueShopId('cat-ver');
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const fill = () => fillPendingBillVersions(t.orm.em.fork(), { shopIds: [shop], limit: 100 });
const versions = async (ownerType: string, ownerId: string) => ok(await gql(t, key, `query($type: BillOwnerType!, $id: String!) {
  billVersions(ownerType: $type, ownerId: $id, limit: 20) { versions { version state savedBy trigger contentHash changes { recipeFields materials locationRules overrides } } pending total } }`,
{ type: ownerType, id: ownerId })).billVersions;
const updateBom = (input: Record<string, unknown>, savedBy = 'Ana') => gql(t, key,
  `mutation($input: BomPatchInput!, $by: String) { updateBom(bomId: "BOM-1001", input: $input, savedBy: $by) { bomSave { billVersion } ${USER_ERRORS} } }`, { input, by: savedBy });

describe('bill versions of catalogue saves', () => {
  it('a save commits a pending version (counted, not listed) that the fill step makes ready with a hash and a summary against the previous one', async () => {
    const created = ok(await gql(t, key, `mutation { createAssemblyBill(input: { assemblyId: "ASM-7", name: "Cap", rawMaterialLines: [{ nodeId: "44001", quantity: "1" }] }) { assemblyBillSave { billVersion } ${USER_ERRORS} } }`));
    expect(created.createAssemblyBill.billVersion).toBe(1);
    expect(await versions('sub_assembly', 'ASM-7')).toEqual({ versions: [], pending: 1, total: 0 });

    expect(await fill()).toBe(1);
    const first = await versions('sub_assembly', 'ASM-7');
    expect(first.pending).toBe(0);
    // Everything counts as changed against nothing: name, onlyConsumePreassembled and archived, and one material line.
    expect(first.versions).toEqual([{ version: 1, state: 'ready', savedBy: expect.stringMatching(/^api-key:/), trigger: 'create',
      contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), changes: { recipeFields: 3, materials: 1, locationRules: 0, overrides: 0 } }]);

    // BOM-1001 (loaded with no versions): a quantity change of one material line and a status change.
    expect(ok(await updateBom({ status: 'inactive', rawMaterialLines: [{ nodeId: '44001', quantity: '0.5', wastePercentage: '5' }] })).updateBom.billVersion).toBe(1);
    expect(ok(await updateBom({ status: 'active', rawMaterialLines: [{ nodeId: '44001', quantity: '0.4', wastePercentage: '5' }] })).updateBom.billVersion).toBe(2);
    expect(ok(await updateBom({ name: 'Large candle' })).updateBom.billVersion).toBe(3);
    expect((await versions('bom', 'BOM-1001')).pending).toBe(3);
    expect(await fill()).toBe(3);
    const bom = await versions('bom', 'BOM-1001');
    expect(bom.versions.map((v: any) => [v.version, v.trigger, v.savedBy, v.changes])).toEqual([
      [3, 'update', 'Ana', { recipeFields: 0, materials: 0, locationRules: 0, overrides: 0 }],
      [2, 'update', 'Ana', { recipeFields: 1, materials: 1, locationRules: 0, overrides: 0 }],
      [1, 'update', 'Ana', { recipeFields: 4 + 2, materials: 1, locationRules: 0, overrides: 0 }],
    ]);
    // Equal content, equal hash: version 3 saved what version 2 did; version 1 differs.
    expect(bom.versions[0].contentHash).toBe(bom.versions[1].contentHash);
    expect(bom.versions[2].contentHash).not.toBe(bom.versions[1].contentHash);
  });

  it('no save is lost: a version left pending by a crash between save and fill is completed by the next pass, with the same hash and summary', async () => {
    const before = (await versions('bom', 'BOM-1001')).versions.find((v: any) => v.version === 2);
    // The state a crash right after the save's commit leaves: the row pending, nothing derived yet.
    await t.orm.em.fork().execute(
      `update bill_versions set state = 'pending', content_hash = null, changed_recipe_fields = 0, changed_materials = 0
        where shop_id = ? and owner_type = 'bom' and owner_id = 'BOM-1001' and version = 2`, [shop]);
    expect(await versions('bom', 'BOM-1001')).toMatchObject({ pending: 1, total: 2 });
    // A filler started after the "crash" (another process) completes it on its first pass.
    const filler = startBillVersionFiller({ orm: t.orm, intervalMs: 0, batchSize: 10, logger: { warn: () => undefined }, shopIds: [shop] });
    expect(await filler.fillOnce()).toBe(1);
    await filler.stop();
    const after = await versions('bom', 'BOM-1001');
    expect(after.pending).toBe(0);
    expect(after.versions.find((v: any) => v.version === 2)).toEqual(before);
  });

  it('the background filler completes a save\'s pending version on its own, shortly after the save', async () => {
    const filler = startBillVersionFiller({ orm: t.orm, intervalMs: 20, batchSize: 10, logger: { warn: () => undefined }, shopIds: [shop] });
    try {
      const saved = ok(await updateBom({ name: 'Large candle (filled in the background)' })).updateBom.billVersion;
      let listed: any;
      for (let attempt = 0; attempt < 100; attempt += 1) {
        listed = await versions('bom', 'BOM-1001');
        if (listed.pending === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(listed.pending).toBe(0);
      expect(listed.versions[0]).toMatchObject({ version: saved, state: 'ready', changes: { recipeFields: 1, materials: 0, locationRules: 0, overrides: 0 } });
    } finally {
      await filler.stop();
    }
  });

  it('versions loaded from a dataset as pending (no content) are left as the file says', async () => {
    const loaded = uniqueShopId('cat-ver-loaded');
    await t.load(toDataset(datasetJson(loaded, { billVersions: [{ ownerType: 'bom', ownerId: 'BOM-1001', version: 1, state: 'pending',
      savedAt: '2026-11-01T09:00:00.000Z', savedBy: 'Ana', trigger: 'manual', contentHash: null, changes: { recipeFields: 0, materials: 0, locationRules: 0, overrides: 0 } }] })));
    expect(await fillPendingBillVersions(t.orm.em.fork(), { shopIds: [loaded], limit: 100 })).toBe(0);
  });

  it('concurrent saves of one bill take distinct, consecutive version numbers', async () => {
    const saved = await Promise.all([1, 2, 3, 4].map((n) => updateBom({ name: `Candle ${n}` }, `Writer ${n}`)));
    expect(saved.map((r) => ok(r).updateBom.billVersion).sort()).toEqual([5, 6, 7, 8]);
  });

  it('one fill pass takes the same number of SQL statements for 1 or 20 pending versions', async () => {
    await updateBom({ name: 'One' });
    await fill();
    await updateBom({ name: 'One more' });
    const one = await countQueries(fill);
    for (let i = 0; i < 20; i += 1) await updateBom({ name: `Many ${i}` });
    const many = await countQueries(fill);
    expect([one.result, many.result]).toEqual([1, 20]);
    expect(many.count).toBe(one.count);
  });
});
