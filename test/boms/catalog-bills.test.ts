import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createBom, updateAssemblyBill, updateBom } from '../../src/modules/boms/bill-write.service.ts';
import { assemblyJson, countQueries, shopContext, virtualJson } from '../helpers/bom-context.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { expectListCostsCurrent, failure, gql, ok } from '../helpers/catalog-helpers.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

// Assembly bills and BOMs written through GraphQL: costs, cycles, archive, validation, scopes,
// tenants and statement counts. The base shop (dataset-factory): 44001 soy wax (cost 6.2),
// VMAT-VAR-0001 wick (0.05), CF-1 labour (20), ASM-1 = 1 wick, BOM-1001 = 0.4 wax at 5 % waste
// + 1 ASM-1 + 0.25 CF-1 (7.654).

let t: TestApp;
const shop = uniqueShopId('cat-bills');
const other = uniqueShopId('cat-bills-other');
let key: string;
let readKey: string;
let otherKey: string;

const manyMaterials = Array.from({ length: 30 }, (_, i) => virtualJson(`M${String(i).padStart(2, '0')}`, `Material ${i}`, [], { unitCost: 0.5 }));

beforeAll(async () => {
  t = await createTestApp();
  const base = datasetJson(shop);
  await t.load(toDataset({ ...base, materials: [...(base.materials as unknown[]), ...manyMaterials] }));
  await t.load(toDataset(datasetJson(other, { assemblyBills: [assemblyJson('ASM-1', [['VMAT-VAR-0001', 1]]), assemblyJson('ASM-9', [['VMAT-VAR-0001', 1]])] })));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

const CREATE_ASSEMBLY = `mutation($input: NewAssemblyBillInput!) {
  createAssemblyBill(input: $input, savedBy: "Ana") { assemblyBillSave { assemblyBill { assemblyId name unitCost subAssemblyLines { nodeId quantity } } billVersion } ${USER_ERRORS} } }`;
const UPDATE_ASSEMBLY = `mutation($id: String!, $input: AssemblyBillPatchInput!) {
  updateAssemblyBill(assemblyId: $id, input: $input) { assemblyBillSave { assemblyBill { assemblyId unitCost } billVersion } ${USER_ERRORS} } }`;
const CREATE_BOM = `mutation($input: NewBomInput!) {
  createBom(input: $input) { bomSave { bom { bomId name status variantId totalCost totalSubAssemblyCost rawMaterialLines { nodeId } } billVersion } ${USER_ERRORS} } }`;
const UPDATE_BOM = `mutation($id: String!, $input: BomPatchInput!) { updateBom(bomId: $id, input: $input) { bomSave { bom { bomId status totalCost } billVersion } ${USER_ERRORS} } }`;
const ARCHIVE_ASSEMBLY = `mutation($id: String!, $archived: Boolean) { setAssemblyBillArchived(assemblyId: $id, archived: $archived) { catalogArchive { id archived billVersion } ${USER_ERRORS} } }`;
const ARCHIVE_BOM = `mutation($id: String!, $archived: Boolean) { setBomArchived(bomId: $id, archived: $archived) { catalogArchive { id archived billVersion } ${USER_ERRORS} } }`;

describe('createAssemblyBill / createBom', () => {
  it('a new assembly bill and a BOM using it are priced from their lines, read back by REST, and the BOM list equals a fresh computation', async () => {
    const asm = ok(await gql(t, key, CREATE_ASSEMBLY, { input: {
      assemblyId: 'ASM-10', name: 'Wick pair', rawMaterialLines: [{ nodeId: 'VMAT-VAR-0001', quantity: '2' }],
      subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '1.5' }], costFactorLines: [{ costFactorId: 'CF-1', quantity: '0.01' }],
    } }));
    // 2 × 0.05 + 1.5 × 0.05 + 0.01 × 20
    expect(asm.createAssemblyBill).toEqual({ assemblyBill: { assemblyId: 'ASM-10', name: 'Wick pair', unitCost: '0.375', subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '1.5' }] }, billVersion: 1 });

    const bom = ok(await gql(t, key, CREATE_BOM, { input: {
      name: 'Wick kit', rawMaterialLines: [{ nodeId: '44001', quantity: '0.1', wastePercentage: '10' }], subAssemblyLines: [{ nodeId: 'ASM-10', quantity: '2' }],
    } }));
    // The shop's next BOM number; 0.1 × 1.1 × 6.2 + 2 × 0.375
    expect(bom.createBom).toEqual({ bom: { bomId: 'BOM-1002', name: 'Wick kit', status: 'active', variantId: null, totalCost: '1.432', totalSubAssemblyCost: '0.75', rawMaterialLines: [{ nodeId: '44001' }] }, billVersion: 1 });

    const rest = await t.get('/api/v1/bills-of-materials/BOM-1002', key);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({ bomId: 'BOM-1002', totalCost: 1.432 });
    const listed = await expectListCostsCurrent(t, shop, key);
    expect(listed['BOM-1002']).toMatchObject({ totalCost: 1.432, status: 'active' });
  });

  it('editing an assembly bill\'s lines reprices every BOM above it in the stored list (roll-up through assemblies)', async () => {
    const res = ok(await gql(t, key, UPDATE_ASSEMBLY, { id: 'ASM-1', input: { rawMaterialLines: [{ nodeId: 'VMAT-VAR-0001', quantity: '3' }] } }));
    expect(res.updateAssemblyBill.assemblyBill.unitCost).toBe('0.15');
    const listed = await expectListCostsCurrent(t, shop, key);
    // BOM-1001: 2.604 + 0.15 + 5; BOM-1002: 0.682 + 2 × (0.1 + 1.5 × 0.15 + 0.2)
    expect(listed['BOM-1001'].totalCost).toBe(7.754);
    expect(listed['BOM-1002'].totalCost).toBe(1.732);
  });

  it('a BOM\'s status, name and finished good change through updateBom, and the list and its stats follow', async () => {
    const res = ok(await gql(t, key, UPDATE_BOM, { id: 'BOM-1002', input: { status: 'inactive', name: 'Wick kit (old)' } }));
    expect(res.updateBom.bom).toMatchObject({ bomId: 'BOM-1002', status: 'inactive' });
    const list = (await t.get('/api/v1/bills-of-materials?statusFilter=inactive', key)).body.data;
    expect(list.items.map((b: any) => [b.bomId, b.name])).toEqual([['BOM-1002', 'Wick kit (old)']]);
    expect(list.stats).toMatchObject({ total: 2, active: 1, inactive: 1 });
    ok(await gql(t, key, UPDATE_BOM, { id: 'BOM-1002', input: { status: 'active' } }));
    await expectListCostsCurrent(t, shop, key);
  });
});

describe('recipe cycles', () => {
  it('a sub-assembly line that leads back to the bill is refused with INVALID_INPUT naming the path, and nothing changes', async () => {
    ok(await gql(t, key, CREATE_ASSEMBLY, { input: { assemblyId: 'ASM-20', name: 'Outer', subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '1' }] } }));
    const closing = failure(await gql(t, key, UPDATE_ASSEMBLY, { id: 'ASM-1', input: { subAssemblyLines: [{ nodeId: 'ASM-20', quantity: '1' }] } }));
    expect(closing.code).toBe('INVALID_INPUT');
    expect(closing.message).toContain('subAssemblyLines: would make a recipe cycle: ASM-1 → ASM-20 → ASM-1');
    const self = failure(await gql(t, key, UPDATE_ASSEMBLY, { id: 'ASM-20', input: { subAssemblyLines: [{ nodeId: 'ASM-20', quantity: '1' }] } }));
    expect(self.message).toContain('ASM-20 → ASM-20');
    const created = failure(await gql(t, key, CREATE_ASSEMBLY, { input: { assemblyId: 'ASM-21', name: 'Self', subAssemblyLines: [{ nodeId: 'ASM-21', quantity: '1' }] } }));
    expect(created.message).toContain('ASM-21 → ASM-21');
    const asm1 = ok(await gql(t, key, '{ assemblyBill(assemblyId: "ASM-1") { subAssemblyLines { nodeId } } }'));
    expect(asm1.assemblyBill.subAssemblyLines).toEqual([]);
    expect(failure(await gql(t, key, '{ assemblyBill(assemblyId: "ASM-21") { name } }')).code).toBe('NOT_FOUND');
  });

  it('a loop that only a location rule closes is refused, naming the location', async () => {
    const cyc = uniqueShopId('cat-cycle');
    // ASM-2's rule at 102 adds ASM-3; making ASM-3 contain ASM-2 closes a loop there only.
    await t.load(toDataset(datasetJson(cyc, {
      assemblyBills: [assemblyJson('ASM-2', [['VMAT-VAR-0001', 1]]), assemblyJson('ASM-3', [['VMAT-VAR-0001', 1]])],
      boms: [],
      locationRules: [{ ownerType: 'sub_assembly', ownerId: 'ASM-2', locationId: '102', overrides: [{ action: 'add', nodeId: 'ASM-3', quantity: 1 }] }],
    })));
    const cycKey = await t.createKey(cyc, ['read', 'write']);
    const refused = failure(await gql(t, cycKey, UPDATE_ASSEMBLY, { id: 'ASM-3', input: { subAssemblyLines: [{ nodeId: 'ASM-2', quantity: '1' }] } }));
    expect(refused.code).toBe('INVALID_INPUT');
    expect(refused.message).toContain('at location 102');
    expect(refused.message).toContain('ASM-3 → ASM-2 → ASM-3');
  });
});

describe('validation', () => {
  it.each([
    ['a negative quantity', { rawMaterialLines: [{ nodeId: '44001', quantity: '-1' }] }, 'rawMaterialLines[0].quantity: must be'],
    ['a zero quantity', { subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '0' }] }, 'subAssemblyLines[0].quantity: must be greater than 0'],
    ['waste of 1000 % or more', { rawMaterialLines: [{ nodeId: '44001', quantity: '1', wastePercentage: '1000' }] }, 'rawMaterialLines[0].wastePercentage'],
    ['an unknown material', { rawMaterialLines: [{ nodeId: 'VMAT-VAR-nope', quantity: '1' }] }, 'rawMaterialLines[0].nodeId: unknown material "VMAT-VAR-nope"'],
    ['an unknown cost factor', { costFactorLines: [{ costFactorId: 'CF-404', quantity: '1' }] }, 'costFactorLines[0].costFactorId: unknown cost factor "CF-404"'],
    ['a duplicate line', { rawMaterialLines: [{ nodeId: '44001', quantity: '1' }, { nodeId: '44001', quantity: '2' }] }, 'rawMaterialLines[1].nodeId: "44001" is already line 0'],
    ['an empty name', { name: '  ' }, 'name: must not be empty'],
    ['a name over its 255-character maximum', { name: 'x'.repeat(256) }, 'name: must be at most 255 characters'],
    ['an unknown finished good', { variantId: '99999' }, 'variantId: unknown platform variant "99999"'],
    ['a finished good that is another BOM\'s', { variantId: '44100' }, 'variantId: variant "44100" is already the finished good of BOM-1001'],
    ['a BOM id not of the form BOM-<digits>', { bomId: 'BOM-X' }, 'bomId: must have the form BOM-<digits>'],
  ])('%s is INVALID_INPUT naming the field, and nothing is created', async (_label, input, message) => {
    const res = await gql(t, key, CREATE_BOM, { input: { name: 'Bad', ...input } });
    const error = failure(res);
    expect(error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(error.message).toContain(message);
    const list = (await t.get('/api/v1/bills-of-materials?search=bad', key)).body.data;
    expect(list.items).toEqual([]);
  });

  it('an id already taken is CONFLICT', async () => {
    expect(failure(await gql(t, key, CREATE_BOM, { input: { bomId: 'BOM-1001', name: 'Again' } })).code).toBe('CONFLICT');
    expect(failure(await gql(t, key, CREATE_ASSEMBLY, { input: { assemblyId: 'ASM-1', name: 'Again' } })).code).toBe('CONFLICT');
  });
});

describe('scopes and tenants', () => {
  it('a read-only key gets FORBIDDEN_SCOPE on every bill mutation and nothing changes', async () => {
    const before = (await t.get('/api/v1/bills-of-materials', key)).body.data.stats.total;
    expect(failure(await gql(t, readKey, CREATE_BOM, { input: { name: 'Nope' } })).code).toBe('FORBIDDEN_SCOPE');
    expect(failure(await gql(t, readKey, UPDATE_BOM, { id: 'BOM-1001', input: { status: 'inactive' } })).code).toBe('FORBIDDEN_SCOPE');
    expect(failure(await gql(t, readKey, CREATE_ASSEMBLY, { input: { name: 'Nope' } })).code).toBe('FORBIDDEN_SCOPE');
    expect(failure(await gql(t, readKey, ARCHIVE_BOM, { id: 'BOM-1001' })).code).toBe('FORBIDDEN_SCOPE');
    expect((await t.get('/api/v1/bills-of-materials', key)).body.data.stats).toMatchObject({ total: before, active: before });
  });

  it('another shop\'s bills are NOT_FOUND and its materials and assemblies are unknown ids; neither shop changes', async () => {
    expect(failure(await gql(t, otherKey, UPDATE_BOM, { id: 'BOM-1002', input: { name: 'Stolen' } })).code).toBe('NOT_FOUND');
    expect(failure(await gql(t, otherKey, ARCHIVE_ASSEMBLY, { id: 'ASM-10' })).code).toBe('NOT_FOUND');
    const foreign = failure(await gql(t, key, UPDATE_BOM, { id: 'BOM-1001', input: { subAssemblyLines: [{ nodeId: 'ASM-9', quantity: '1' }] } }));
    expect(foreign).toMatchObject({ code: 'INVALID_INPUT' });
    expect(foreign.message).toContain('unknown assembly bill "ASM-9"');
    expect((await t.get('/api/v1/bills-of-materials/BOM-1002', key)).body.data.name).toBe('Wick kit (old)');
  });
});

describe('archive', () => {
  it('an assembly bill an active BOM reaches cannot be archived (CONFLICT naming the BOMs); once unused it can, and then cannot be added to new lines', async () => {
    const refused = failure(await gql(t, key, ARCHIVE_ASSEMBLY, { id: 'ASM-10' }));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.message).toContain('BOM-1002');
    // BOM-1002 inactive: nothing active reaches ASM-10 any more.
    ok(await gql(t, key, UPDATE_BOM, { id: 'BOM-1002', input: { status: 'inactive' } }));
    expect(ok(await gql(t, key, ARCHIVE_ASSEMBLY, { id: 'ASM-10' })).setAssemblyBillArchived).toEqual({ id: 'ASM-10', archived: true, billVersion: 2 });
    expect(ok(await gql(t, key, '{ assemblyBill(assemblyId: "ASM-10") { archived } bom(bomId: "BOM-1002") { archived } }')))
      .toEqual({ assemblyBill: { archived: true }, bom: { archived: false } });
    const added = failure(await gql(t, key, UPDATE_BOM, { id: 'BOM-1001', input: { subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '1' }, { nodeId: 'ASM-10', quantity: '1' }] } }));
    expect(added.message).toContain('subAssemblyLines[1].nodeId: assembly bill "ASM-10" is archived');
    // Existing references keep working: BOM-1002 is still priced through it and may re-send its line.
    ok(await gql(t, key, UPDATE_BOM, { id: 'BOM-1002', input: { subAssemblyLines: [{ nodeId: 'ASM-10', quantity: '3' }] } }));
    expect((await t.get('/api/v1/bills-of-materials/BOM-1002', key)).body.data.totalSubAssemblyCost).toBe(1.575);
    // Archiving twice saves nothing; restoring brings it back.
    expect(ok(await gql(t, key, ARCHIVE_ASSEMBLY, { id: 'ASM-10' })).setAssemblyBillArchived.billVersion).toBeNull();
    expect(ok(await gql(t, key, ARCHIVE_ASSEMBLY, { id: 'ASM-10', archived: false })).setAssemblyBillArchived).toMatchObject({ archived: false });
    await expectListCostsCurrent(t, shop, key);
  });

  it('an archived BOM leaves the BOM list but is still read by id; restoring it brings it back', async () => {
    ok(await gql(t, key, ARCHIVE_BOM, { id: 'BOM-1002' }));
    const ids = async () => (await t.get('/api/v1/bills-of-materials', key)).body.data.items.map((b: any) => b.bomId);
    expect(await ids()).toEqual(['BOM-1001']);
    expect((await t.get('/api/v1/bills-of-materials/BOM-1002', key)).status).toBe(200);
    expect(ok(await gql(t, key, '{ bom(bomId: "BOM-1002") { archived } }')).bom.archived).toBe(true);
    ok(await gql(t, key, ARCHIVE_BOM, { id: 'BOM-1002', archived: false }));
    expect((await ids()).sort()).toEqual(['BOM-1001', 'BOM-1002']);
    await expectListCostsCurrent(t, shop, key);
  });
});

describe('bounded statements', () => {
  // /graphql sets no X-Query-Count, so the saves are counted on the service the mutations call, in this async context.
  it('saving a BOM takes as many SQL statements with 30 lines as with 1 (create and edit)', async () => {
    const ctx = shopContext(t.orm, shop);
    const lines = (n: number) => manyMaterials.slice(0, n).map((m: any) => ({ nodeId: m.variantId, quantity: '1' }));
    const author = { savedBy: 'test' };
    const one = await countQueries(() => createBom(ctx, null, { name: 'One line', rawMaterialLines: lines(1) }, author));
    const thirty = await countQueries(() => createBom(ctx, null, { name: 'Thirty lines', rawMaterialLines: lines(30) }, author));
    expect(one.count).toBeGreaterThan(5);
    expect(thirty.count).toBe(one.count);
    const edit1 = await countQueries(() => updateBom(ctx, one.result.ownerId, { rawMaterialLines: lines(2) }, author));
    const edit30 = await countQueries(() => updateBom(ctx, thirty.result.ownerId, { rawMaterialLines: lines(29) }, author));
    expect(edit30.count).toBe(edit1.count);
    const listed = await expectListCostsCurrent(t, shop, key);
    expect(listed[thirty.result.ownerId].totalCost).toBe(14.5);
  });

  it('editing an assembly that 20 more BOMs use takes no more statements (one per level of bills above it, not one per bill)', async () => {
    const ctx = shopContext(t.orm, shop);
    const author = { savedBy: 'test' };
    // ASM-1 is under ASM-10 and ASM-20 (one level) and BOM-1001/1002 (two); 20 more BOMs on ASM-1 add no statement.
    const before = await countQueries(() => updateAssemblyBill(ctx, 'ASM-1', { rawMaterialLines: [{ nodeId: 'VMAT-VAR-0001', quantity: '2' }] }, author));
    for (let i = 0; i < 20; i += 1) await createBom(ctx, null, { name: `On ASM-1 ${i}`, subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '1' }] }, author);
    const after = await countQueries(() => updateAssemblyBill(ctx, 'ASM-1', { rawMaterialLines: [{ nodeId: 'VMAT-VAR-0001', quantity: '3' }] }, author));
    expect(after.count).toBe(before.count);
    await expectListCostsCurrent(t, shop, key);
  });
});
