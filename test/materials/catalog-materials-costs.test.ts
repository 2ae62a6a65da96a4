import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { expectListCostsCurrent, failure, gql, ok } from '../helpers/catalog-helpers.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

// Virtual materials and cost factors written through GraphQL. The base shop (dataset-factory):
// BOM-1001 = 0.4 soy wax (44001, 6.2) at 5 % waste + 1 ASM-1 (1 wick VMAT-VAR-0001, 0.05) + 0.25 CF-1 (20).

let t: TestApp;
const shop = uniqueShopId('cat-mat');
const other = uniqueShopId('cat-mat-other');
let key: string;
let readKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shop)));
  await t.load(toDataset(datasetJson(other)));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

const CREATE_MATERIAL = `mutation($input: NewVirtualMaterialInput!) {
  createVirtualMaterial(input: $input) { rawMaterial { variantId origin productId inventoryItemId productName unitCost inventoryQuantity isNonEssentialMaterial } ${USER_ERRORS} } }`;
const ARCHIVE_MATERIAL = `mutation($id: ID!, $archived: Boolean) { setRawMaterialArchived(variantId: $id, archived: $archived) { catalogArchive { id archived } ${USER_ERRORS} } }`;
const CREATE_FACTOR = `mutation($input: NewCostFactorInput!) { createCostFactor(input: $input) { costFactor { costFactorId name kind unit unitCost } ${USER_ERRORS} } }`;
const UPDATE_FACTOR = `mutation($id: String!, $input: CostFactorPatchInput!) { updateCostFactor(costFactorId: $id, input: $input) { costFactor { costFactorId name kind unit unitCost } ${USER_ERRORS} } }`;
const ARCHIVE_FACTOR = `mutation($id: String!, $archived: Boolean) { setCostFactorArchived(costFactorId: $id, archived: $archived) { catalogArchive { id archived } ${USER_ERRORS} } }`;
const ADD_LINE = `mutation($raw: [RawMaterialLineInput!], $cost: [CostFactorLineInput!]) {
  updateAssemblyBill(assemblyId: "ASM-1", input: { rawMaterialLines: $raw, costFactorLines: $cost }) { assemblyBillSave { assemblyBill { unitCost } } ${USER_ERRORS} } }`;

const materialCount = async () => (await t.get('/api/v1/raw-materials?originFilter=virtual', key)).body.data.totalCount;

describe('virtual materials', () => {
  let created: string;

  it('createVirtualMaterial makes a VMAT material with no stock that REST reads back exactly', async () => {
    const res = ok(await gql(t, key, CREATE_MATERIAL, { input: { productName: 'Beeswax', unitCost: '3.125', unit: 'kg', sku: 'BW-1' } }));
    const m = res.createVirtualMaterial;
    created = m.variantId;
    expect(m.variantId).toMatch(/^VMAT-VAR-[0-9a-f-]{36}$/);
    expect(m).toMatchObject({ origin: 'virtual', productId: m.variantId.replace('VAR', 'PROD'), inventoryItemId: m.variantId.replace('VAR', 'INV'),
      productName: 'Beeswax', unitCost: '3.125', inventoryQuantity: '0', isNonEssentialMaterial: false });
    const rest = await t.get(`/api/v1/raw-materials/${m.variantId}`, key);
    expect(rest.status).toBe(200);
    expect(rest.body.data.material).toMatchObject({ variantId: m.variantId, productName: 'Beeswax', sku: 'BW-1', unit: 'kg', unitCost: 3.125, inventoryQuantity: 0 });
  });

  it.each([
    ['an empty productName', { productName: '' }, 'productName: must not be empty'],
    ['a negative unitCost', { productName: 'X', unitCost: '-1' }, 'unitCost: must be between 0 and 10^14'],
    ['a label over its 255-character maximum', { productName: 'X', vendor: 'v'.repeat(256) }, 'vendor: must be at most 255 characters'],
  ])('%s is INVALID_INPUT naming the field, and nothing is created', async (_label, input, message) => {
    const before = await materialCount();
    const error = failure(await gql(t, key, CREATE_MATERIAL, { input }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(message);
    expect(await materialCount()).toBe(before);
  });

  it('a read-only key gets FORBIDDEN_SCOPE and nothing is created or archived', async () => {
    const before = await materialCount();
    expect(failure(await gql(t, readKey, CREATE_MATERIAL, { input: { productName: 'Nope' } })).code).toBe('FORBIDDEN_SCOPE');
    expect(failure(await gql(t, readKey, ARCHIVE_MATERIAL, { id: created })).code).toBe('FORBIDDEN_SCOPE');
    expect(await materialCount()).toBe(before);
  });

  it('a platform-linked material cannot be archived (INVALID_INPUT: read-only); another shop\'s material is NOT_FOUND', async () => {
    const platform = failure(await gql(t, key, ARCHIVE_MATERIAL, { id: '44001' }));
    expect(platform.code).toBe('INVALID_INPUT');
    expect(platform.message).toContain('platform-linked');
    expect(failure(await gql(t, otherKey, ARCHIVE_MATERIAL, { id: created })).code).toBe('NOT_FOUND');
  });

  it('a material an active BOM uses cannot be archived (CONFLICT naming the BOM); an unused one can, and cannot then be added to a recipe', async () => {
    const used = failure(await gql(t, key, ARCHIVE_MATERIAL, { id: 'VMAT-VAR-0001' }));
    expect(used.code).toBe('CONFLICT');
    expect(used.message).toContain('BOM-1001');
    expect(ok(await gql(t, key, ARCHIVE_MATERIAL, { id: created })).setRawMaterialArchived).toEqual({ id: created, archived: true });
    expect(ok(await gql(t, key, `query($id: ID!) { rawMaterial(variantId: $id) { archived } }`, { id: created })).rawMaterial.archived).toBe(true);
    const added = failure(await gql(t, key, ADD_LINE, { raw: [{ nodeId: 'VMAT-VAR-0001', quantity: '1' }, { nodeId: created, quantity: '1' }] }));
    expect(added.message).toContain(`rawMaterialLines[1].nodeId: material "${created}" is archived`);
    // Restored, it can be used again; its unit cost prices the line.
    ok(await gql(t, key, ARCHIVE_MATERIAL, { id: created, archived: false }));
    const priced = ok(await gql(t, key, ADD_LINE, { raw: [{ nodeId: 'VMAT-VAR-0001', quantity: '1' }, { nodeId: created, quantity: '2' }] }));
    expect(priced.updateAssemblyBill.assemblyBill.unitCost).toBe('6.3');
    const listed = await expectListCostsCurrent(t, shop, key);
    expect(listed['BOM-1001'].totalCost).toBe(13.904);
  });

  it('a unit-cost edit of a virtual material (updateRawMaterial) keeps the BOM list equal to a fresh computation', async () => {
    ok(await gql(t, key, `mutation($id: ID!) { updateRawMaterial(variantId: $id, input: { unitCost: "1" }) { rawMaterial { unitCost } ${USER_ERRORS} } }`, { id: created }));
    const listed = await expectListCostsCurrent(t, shop, key);
    // ASM-1 = 0.05 + 2 × 1
    expect(listed['BOM-1001'].totalCost).toBe(9.654);
  });
});

describe('cost factors', () => {
  it('createCostFactor takes the shop\'s next CF-<n> or the client\'s id; the costFactors query reads it back', async () => {
    expect(ok(await gql(t, key, CREATE_FACTOR, { input: { name: 'Kiln', kind: 'machine', unit: 'hour', unitCost: '12.5' } })).createCostFactor)
      .toEqual({ costFactorId: 'CF-2', name: 'Kiln', kind: 'machine', unit: 'hour', unitCost: '12.5' });
    expect(ok(await gql(t, key, CREATE_FACTOR, { input: { costFactorId: 'CF-box', name: 'Box', kind: 'packaging', unitCost: '0.4' } })).createCostFactor)
      .toMatchObject({ costFactorId: 'CF-box', unit: null });
    const all = ok(await gql(t, key, '{ costFactors { costFactorId } }')).costFactors.map((f: any) => f.costFactorId);
    expect(all).toEqual(['CF-1', 'CF-2', 'CF-box']);
  });

  it('a new unit cost reprices every BOM that uses the factor, through its assemblies, as a fresh computation does', async () => {
    ok(await gql(t, key, ADD_LINE, { cost: [{ costFactorId: 'CF-2', quantity: '0.1' }] }));
    const res = ok(await gql(t, key, UPDATE_FACTOR, { id: 'CF-2', input: { unitCost: '20', unit: null } }));
    expect(res.updateCostFactor).toMatchObject({ unitCost: '20', unit: null });
    const listed = await expectListCostsCurrent(t, shop, key);
    // BOM-1001 = 2.604 + (2.05 + 0.1 × 20) + 5
    expect(listed['BOM-1001'].totalCost).toBe(11.654);
    ok(await gql(t, key, UPDATE_FACTOR, { id: 'CF-1', input: { unitCost: '0' } }));
    expect((await expectListCostsCurrent(t, shop, key))['BOM-1001'].totalCost).toBe(6.654);
  });

  it.each([
    ['a negative unitCost', { name: 'X', kind: 'labor', unitCost: '-0.01' }, 'unitCost'],
    ['an empty name', { name: '', kind: 'labor', unitCost: '1' }, 'name: must not be empty'],
    ['an id not of the form CF-<id>', { costFactorId: 'LAB', name: 'X', kind: 'labor', unitCost: '1' }, 'costFactorId: must have the form CF-<id>'],
  ])('%s is INVALID_INPUT naming the field', async (_label, input, message) => {
    const error = failure(await gql(t, key, CREATE_FACTOR, { input }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(message);
  });

  it('an id already taken is CONFLICT; an unknown or another shop\'s factor is NOT_FOUND; a read-only key is FORBIDDEN_SCOPE', async () => {
    expect(failure(await gql(t, key, CREATE_FACTOR, { input: { costFactorId: 'CF-1', name: 'X', kind: 'labor', unitCost: '1' } })).code).toBe('CONFLICT');
    expect(failure(await gql(t, otherKey, UPDATE_FACTOR, { id: 'CF-2', input: { name: 'Stolen' } })).code).toBe('NOT_FOUND');
    expect(failure(await gql(t, readKey, UPDATE_FACTOR, { id: 'CF-2', input: { name: 'Nope' } })).code).toBe('FORBIDDEN_SCOPE');
    expect(ok(await gql(t, key, '{ costFactors { costFactorId name } }')).costFactors.find((f: any) => f.costFactorId === 'CF-2').name).toBe('Kiln');
  });

  it('a factor an active BOM reaches cannot be archived (CONFLICT naming the BOM); an unused one can, and cannot then be added to a recipe', async () => {
    const used = failure(await gql(t, key, ARCHIVE_FACTOR, { id: 'CF-2' }));
    expect(used.code).toBe('CONFLICT');
    expect(used.message).toContain('BOM-1001');
    // ASM-50 uses CF-box but no active BOM reaches ASM-50.
    ok(await gql(t, key, `mutation { createAssemblyBill(input: { assemblyId: "ASM-50", name: "Boxed", costFactorLines: [{ costFactorId: "CF-box", quantity: "2" }] }) { assemblyBillSave { billVersion } ${USER_ERRORS} } }`));
    expect(ok(await gql(t, key, ARCHIVE_FACTOR, { id: 'CF-box' })).setCostFactorArchived).toEqual({ id: 'CF-box', archived: true });
    // The existing line keeps pricing it, and shows it archived.
    expect(ok(await gql(t, key, '{ assemblyBill(assemblyId: "ASM-50") { unitCost costFactorLines { node { costFactorId archived } } } }')).assemblyBill)
      .toEqual({ unitCost: '0.8', costFactorLines: [{ node: { costFactorId: 'CF-box', archived: true } }] });
    const added = failure(await gql(t, key, ADD_LINE, { cost: [{ costFactorId: 'CF-box', quantity: '1' }] }));
    expect(added.message).toContain('costFactorLines[0].costFactorId: cost factor "CF-box" is archived');
  });
});
