import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset } from '../../src/dataset/export.ts';
import { validateDataset } from '../../src/dataset/parse.ts';
import { serializeDataset } from '../../src/dataset/serialize.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Planning fields (docs/planning.md): materials' leadTimeDays, minimumOrderQuantity, orderMultiple;
// BOMs' and assembly bills' leadTimeDays — in the dataset (load, export only when not default),
// GraphQL reads and writes, and errors that name the field.

let t: TestApp;
let key: string;
const shop = uniqueShopId('plan-fields');
const plain = uniqueShopId('plan-fields-plain');

const withPlanning = () => {
  const base = datasetJson(shop);
  const [wax, wick] = base.materials as Record<string, unknown>[];
  return {
    ...base,
    materials: [{ ...wax, leadTimeDays: 7, minimumOrderQuantity: 25, orderMultiple: 12.5 }, { ...wick, leadTimeDays: 2 }],
    assemblyBills: (base.assemblyBills as Record<string, unknown>[]).map((a) => ({ ...a, leadTimeDays: 1 })),
    boms: (base.boms as Record<string, unknown>[]).map((b) => ({ ...b, leadTimeDays: 3 })),
  };
};

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(withPlanning()));
  await t.load(toDataset(datasetJson(plain)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const READ = `query { rawMaterial(variantId: "44001") { leadTimeDays minimumOrderQuantity orderMultiple }
  wick: rawMaterial(variantId: "VMAT-VAR-0001") { leadTimeDays minimumOrderQuantity orderMultiple }
  bom(bomId: "BOM-1001") { leadTimeDays } assemblyBill(assemblyId: "ASM-1") { leadTimeDays } }`;

describe('planning fields', () => {
  it('a dataset\'s planning fields load and read back through GraphQL; absent ones read as the defaults (0, 0, null)', async () => {
    const { body } = await t.graphql(key, READ);
    expect(body.errors).toBeUndefined();
    expect(body.data.rawMaterial).toEqual({ leadTimeDays: 7, minimumOrderQuantity: '25', orderMultiple: '12.5' });
    expect(body.data.wick).toEqual({ leadTimeDays: 2, minimumOrderQuantity: '0', orderMultiple: null });
    expect(body.data.bom.leadTimeDays).toBe(3);
    expect(body.data.assemblyBill.leadTimeDays).toBe(1);
  });

  it('an export writes planning fields only where they differ from the default, so a shop that never plans exports as before', async () => {
    const exported = await exportDataset(t.orm.em, shop);
    const wax = exported.materials.find((m) => m.variantId === '44001')!;
    const wick = exported.materials.find((m) => m.variantId === 'VMAT-VAR-0001')!;
    expect([wax.leadTimeDays, wax.minimumOrderQuantity, wax.orderMultiple]).toEqual([7, '25', '12.5']);
    expect(wick.leadTimeDays).toBe(2);
    expect('minimumOrderQuantity' in wick || 'orderMultiple' in wick).toBe(false);
    expect(exported.boms[0]!.leadTimeDays).toBe(3);
    const plainText = serializeDataset(await exportDataset(t.orm.em, plain));
    expect(plainText).not.toMatch(/leadTimeDays|minimumOrderQuantity|orderMultiple/);
  });

  it('a dataset with a wrong planning field is refused, the error naming the field', () => {
    const bad = withPlanning();
    (bad.materials as Record<string, unknown>[])[0]!.orderMultiple = 0;
    (bad.materials as Record<string, unknown>[])[1]!.leadTimeDays = 1.5;
    (bad.materials as Record<string, unknown>[])[1]!.minimumOrderQuantity = -1;
    (bad.boms as Record<string, unknown>[])[0]!.leadTimeDays = -2;
    const result = validateDataset(JSON.parse(JSON.stringify(bad)));
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['$.materials[0].orderMultiple', '$.materials[1].leadTimeDays',
      '$.materials[1].minimumOrderQuantity', '$.boms[0].leadTimeDays']));
  });

  it('updateMaterialPlanning sets the fields of a platform-linked material too (they are not mirrored); null orderMultiple = any quantity', async () => {
    const M = `mutation($id: ID!, $input: MaterialPlanningInput!) { updateMaterialPlanning(variantId: $id, input: $input) {
      rawMaterial { leadTimeDays minimumOrderQuantity orderMultiple } ${USER_ERRORS} } }`;
    const set = await t.graphql(key, M, { id: '44001', input: { leadTimeDays: 10, orderMultiple: null } });
    expect(set.body.data.updateMaterialPlanning).toEqual({ rawMaterial: { leadTimeDays: 10, minimumOrderQuantity: '25', orderMultiple: null }, userErrors: [] });
    const bad = await t.graphql(key, M, { id: '44001', input: { leadTimeDays: -1, minimumOrderQuantity: '-3', orderMultiple: '0' } });
    const [error] = bad.body.data.updateMaterialPlanning.userErrors;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.errors.map((e: { field: string }) => e.field)).toEqual(['leadTimeDays', 'minimumOrderQuantity', 'orderMultiple']);
    const missing = await t.graphql(key, M, { id: 'VMAT-VAR-nope', input: { leadTimeDays: 1 } });
    expect(missing.body.data.updateMaterialPlanning.userErrors[0].code).toBe('NOT_FOUND');
  });

  it('bills take leadTimeDays on create and edit; a negative or fractional lead time names the field', async () => {
    const create = await t.graphql(key, `mutation { createAssemblyBill(input: { name: "Lid", leadTimeDays: 4 }) { assemblyBillSave { assemblyBill { assemblyId leadTimeDays } } ${USER_ERRORS} } }`);
    expect(create.body.data.createAssemblyBill.assemblyBillSave.assemblyBill.leadTimeDays).toBe(4);
    const edit = await t.graphql(key, `mutation { updateBom(bomId: "BOM-1001", input: { leadTimeDays: 5 }) { bomSave { bom { leadTimeDays } } ${USER_ERRORS} } }`);
    expect(edit.body.data.updateBom.bomSave.bom.leadTimeDays).toBe(5);
    const bad = await t.graphql(key, `mutation { updateBom(bomId: "BOM-1001", input: { leadTimeDays: -1 }) { bomSave { bom { leadTimeDays } } ${USER_ERRORS} } }`);
    expect(bad.body.data.updateBom.userErrors[0].errors).toEqual([{ field: 'leadTimeDays', message: expect.stringContaining('whole number of days') }]);
    const created = await t.graphql(key, `mutation { createVirtualMaterial(input: { productName: "Jar", leadTimeDays: 3, minimumOrderQuantity: "100", orderMultiple: "50" }) {
      rawMaterial { leadTimeDays minimumOrderQuantity orderMultiple } ${USER_ERRORS} } }`);
    expect(created.body.data.createVirtualMaterial.rawMaterial).toEqual({ leadTimeDays: 3, minimumOrderQuantity: '100', orderMultiple: '50' });
  });
});
