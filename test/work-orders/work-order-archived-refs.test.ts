import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { only, USER_ERRORS } from '../helpers/graphql-payloads.ts';

// Archived catalogue rows keep their history but take no new work: a new work order cannot name an
// archived BOM, assembly bill or material, while a work order that already does keeps reading.

let t: TestApp;
let key: string;
const shop = uniqueShopId('gql-wo-archived');

beforeAll(async () => {
  t = await createTestApp();
  const json = workOrderShop(shop, [
    workOrder('wo_insert_kit', 'ready', { items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-3000', quantity: 2, completedQuantity: 0 }] }),
  ]);
  // A virtual material no recipe uses, so it can be archived.
  (json.materials as object[]).push({ variantId: 'VMAT-VAR-0099', productId: 'VMAT-PROD-0099', inventoryItemId: 'VMAT-INV-0099', productName: 'Old dye',
    variantName: 'Red', sku: 'DYE-R', vendor: 'DyeCo', unit: 'g', unitCost: 0.1, unitPrice: 0, levels: [] });
  await t.load(toDataset(json));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

async function gql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  return (await t.graphql(key, query, variables)).body;
}
const create = async (input: Record<string, unknown>) => only(await gql(`mutation($input: CreateWorkOrderInput!) { createWorkOrder(input: $input) { createdWorkOrder { workOrderId } ${USER_ERRORS} } }`, { input }));

describe('createWorkOrder and archived catalogue rows', () => {
  it('an archived BOM, assembly bill or material is INVALID_INPUT naming the field; restored, it takes work again', async () => {
    // BOM-3000 is the only BOM reaching ASM-ONLY: archived first, it lets the assembly bill be archived too.
    expect(only(await gql(`mutation { setBomArchived(bomId: "BOM-3000") { catalogArchive { archived } ${USER_ERRORS} } }`)).result.archived).toBe(true);
    expect(only(await gql(`mutation { setAssemblyBillArchived(assemblyId: "ASM-ONLY") { catalogArchive { archived } ${USER_ERRORS} } }`)).result.archived).toBe(true);
    expect(only(await gql(`mutation { setRawMaterialArchived(variantId: "VMAT-VAR-0099") { catalogArchive { archived } ${USER_ERRORS} } }`)).result.archived).toBe(true);

    const body = await create({
      name: 'Archived refs', sourceType: 'empty', items: [{ bomId: 'BOM-3000', quantity: 1 }, { assemblyId: 'ASM-ONLY', quantity: 1 }],
      manualMaterials: [{ variantId: 'VMAT-VAR-0099', quantity: 5 }],
    });
    expect(body.failure?.code).toBe('INVALID_INPUT');
    expect(body.failure?.message).toBe([
      'items[0].bomId: bom BOM-3000 is archived; restore it or choose another',
      'items[1].assemblyId: assembly bill ASM-ONLY is archived; restore it or choose another',
      'manualMaterials[0].variantId: material VMAT-VAR-0099 is archived; restore it or choose another',
    ].join('; '));

    await gql(`mutation { setBomArchived(bomId: "BOM-3000", archived: false) { catalogArchive { archived } ${USER_ERRORS} } }`);
    const restored = await create({ name: 'Insert kits', sourceType: 'bom', items: [{ bomId: 'BOM-3000', quantity: 1 }] });
    expect(restored.failure).toBeNull();
  });

  it('a work order that already names an archived BOM keeps reading it', async () => {
    await gql(`mutation { setBomArchived(bomId: "BOM-3000") { catalogArchive { archived } ${USER_ERRORS} } }`);
    const read = await gql('{ workOrder(workOrderId: "wo_insert_kit") { items { ownerId name quantity } } }');
    expect(read.errors).toBeUndefined();
    expect(read.data.workOrder.items).toEqual([{ ownerId: 'BOM-3000', name: 'Insert kit', quantity: '2' }]);
  });
});
