import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateMaterial } from '../../src/modules/materials/material-update.service.ts';
import { loadersOf } from '../../schema/loaders.ts';
import { assemblyJson, bomJson, shopContext, variantJson, virtualJson } from '../helpers/bom-context.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { orderDataset } from '../helpers/order-dataset.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;

/** POSTs a GraphQL operation; its body with the SQL statements it sent. */
const gql = (key: string, query: string, variables: Record<string, unknown> = {}) => t.graphql(key, query, variables);

/**
 * A BOM over a chain of `depth` assembly bills (ASM-1 → ASM-2 → …), each with `width` raw lines
 * alternating platform-linked and virtual materials; the BOM itself has one line of each.
 */
function treeShop(shopId: string, depth: number, width: number) {
  const platform: Record<string, unknown>[] = [variantJson('44100', 'Finished candle', [{ locationId: '101', available: 1 }])];
  const catalogue: Record<string, unknown>[] = [];
  const linesOf = (level: number, count: number): [string, number][] => Array.from({ length: count }, (_, i) => {
    if (i % 2 === 0) {
      const id = `5${String(level).padStart(2, '0')}${String(i).padStart(3, '0')}`;
      platform.push(variantJson(id, `Platform ${level}.${i}`, [{ locationId: '101', available: 10 + i }, { locationId: '102', available: level }]));
      catalogue.push({ variantId: id, unit: 'pcs', isNonEssentialMaterial: false });
      return [id, 1];
    }
    const suffix = `${level}-${i}`;
    catalogue.push(virtualJson(suffix, `Virtual ${level}.${i}`, [{ locationId: '102', available: i }]));
    return [`VMAT-VAR-${suffix}`, 2];
  });
  const assemblies = Array.from({ length: depth }, (_, k) =>
    assemblyJson(`ASM-${k + 1}`, linesOf(k + 1, width), k + 1 < depth ? [[`ASM-${k + 2}`, 1]] : []));
  const bom = bomJson('BOM-9001', '44100', linesOf(0, 2), [['ASM-1', 1]]);
  return toDataset(datasetJson(shopId, {
    platform: { locations: [{ id: '101', name: 'Main Workshop' }, { id: '102', name: 'Downtown Store' }], variants: platform, orders: [] },
    materials: catalogue, costFactors: [], assemblyBills: assemblies, boms: [bom], locationRules: [], preassembled: [],
  }));
}

const LINE = 'nodeId material { variantId levels { available location { name } } }';
// Five levels of assemblies below the BOM (the depth of a deep real recipe), every line's material
// with its levels and their locations: within the default complexity limit, because a recipe's line
// lists are priced by a branching estimate of 2, not the list multiplier of 10 (schema/types/boms/bom.ts).
function nestedAssemblies(levels: number): string {
  const inner = levels === 1 ? '' : `subAssemblyLines { nodeId assembly { ${nestedAssemblies(levels - 1)} } }`;
  return `assemblyId unitCost rawMaterialLines { ${LINE} } ${inner}`;
}
const TREE_QUERY = `query Tree($bomId: String!) {
  bom(bomId: $bomId) {
    rawMaterialLines { ${LINE} }
    subAssemblyLines { nodeId assembly { ${nestedAssemblies(5)} } }
  }
}`;

describe('links between types', () => {
  const shop = uniqueShopId('links');
  const orders = uniqueShopId('links-orders');
  const other = uniqueShopId('links-other');
  let key: string;
  let ordersKey: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.load(bomShopDataset(shop));
    await t.load(toDataset(orderDataset(orders)));
    await t.load(toDataset(datasetJson(other, { platform: { locations: [{ id: '201', name: 'Elsewhere' }], variants: [], orders: [] }, materials: [], assemblyBills: [], boms: [], costFactors: [] })));
    key = await t.createKey(shop, ['read']);
    ordersKey = await t.createKey(orders, ['read']);
    otherKey = await t.createKey(other, ['read']);
  });
  afterAll(() => t.close());

  it('SubAssemblyLine.assembly is the assembly bill the line names, the same as assemblyBill(assemblyId), at every depth', async () => {
    const { status, body } = await gql(key, `{ bom(bomId: "BOM-1002") { subAssemblyLines { nodeId assembly {
      assemblyId name unitCost onlyConsumePreassembled subAssemblyLines { nodeId assembly { assemblyId name unitCost rawMaterialLines { nodeId quantity } } } } } } }`);
    expect(status).toBe(200);
    const lines = body.data.bom.subAssemblyLines;
    expect(lines.map((l: any) => [l.nodeId, l.assembly.assemblyId])).toEqual([['ASM-3', 'ASM-3'], ['ASM-2', 'ASM-2']]);
    const giftBox = lines[0].assembly;
    expect(giftBox).toMatchObject({ name: 'Gift box', onlyConsumePreassembled: true });
    expect(giftBox.subAssemblyLines[0].assembly).toMatchObject({ assemblyId: 'ASM-1', rawMaterialLines: [{ nodeId: 'VMAT-VAR-0001', quantity: '1' }, { nodeId: 'VMAT-VAR-0003', quantity: '1' }] });
    for (const id of ['ASM-3', 'ASM-1']) {
      const direct = (await gql(key, '{ assemblyBill(assemblyId: "' + id + '") { assemblyId name unitCost } }')).body.data.assemblyBill;
      const linked = id === 'ASM-3' ? giftBox : giftBox.subAssemblyLines[0].assembly;
      expect({ assemblyId: linked.assemblyId, name: linked.name, unitCost: linked.unitCost }).toEqual(direct);
    }
  });

  it('RawMaterialLine.material is the raw material the line names, the same as rawMaterial(variantId)', async () => {
    const fields = 'variantId origin productName variantName sku unit unitCost inventoryQuantity isNonEssentialMaterial';
    const { body } = await gql(key, `{ bom(bomId: "BOM-1001") { rawMaterialLines { nodeId material { ${fields} } } }
      assemblyBill(assemblyId: "ASM-1") { rawMaterialLines { nodeId material { ${fields} } } } }`);
    const linked = [...body.data.bom.rawMaterialLines, ...body.data.assemblyBill.rawMaterialLines];
    expect(linked.map((l: any) => l.material.variantId)).toEqual(['44001', 'VMAT-VAR-0001', 'VMAT-VAR-0003']);
    for (const line of linked) {
      const direct = (await gql(key, `{ rawMaterial(variantId: "${line.nodeId}") { ${fields} } }`)).body.data.rawMaterial;
      expect(line.material).toEqual(direct);
    }
  });

  it('RawMaterial.levels gives the figures of rawMaterialInventory, for every location and for a scope, platform-linked and virtual', async () => {
    for (const variantId of ['44001', 'VMAT-VAR-0001']) {
      for (const scope of [null, ['102'], ['103', '101']]) {
        const { body } = await gql(key, `query($v: ID!, $s: [ID!]) {
          rawMaterial(variantId: $v) { levels(locationIds: $s) { locationId locationName available } }
          rawMaterialInventory(variantId: $v, locationIds: $s) { levels { locationId locationName available } } }`, { v: variantId, s: scope });
        expect(body.errors).toBeUndefined();
        expect(body.data.rawMaterial.levels).toEqual(body.data.rawMaterialInventory.levels);
      }
    }
    const { body } = await gql(key, '{ rawMaterial(variantId: "44001") { levels { locationId available location { name } } } }');
    expect(body.data.rawMaterial.levels).toEqual([
      { locationId: '101', available: '40', location: { name: 'Main Workshop' } },
      { locationId: '102', available: '3', location: { name: 'Downtown Store' } },
      { locationId: '103', available: '-2', location: { name: 'Annex' } },
    ]);
  });

  it('RawMaterial.levels refuses a location id that is not bare numeric (INVALID_INPUT naming locationIds)', async () => {
    const { body } = await gql(key, '{ rawMaterial(variantId: "44001") { levels(locationIds: ["gid://shopify/Location/101"]) { available } } }');
    expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
    expect(body.errors[0].message).toContain('locationIds');
  });

  it('a BOM tree costs the same SQL statements whatever its depth and width, materials, levels and locations included', async () => {
    const small = uniqueShopId('links-small');
    const large = uniqueShopId('links-large');
    await t.load(treeShop(small, 1, 2));
    await t.load(treeShop(large, 6, 24));
    const smallKey = await t.createKey(small, ['read']);
    const largeKey = await t.createKey(large, ['read']);
    await gql(smallKey, TREE_QUERY, { bomId: 'BOM-9001' }); // the first run of an operation is not JIT-compiled yet
    const a = await gql(smallKey, TREE_QUERY, { bomId: 'BOM-9001' });
    const b = await gql(largeKey, TREE_QUERY, { bomId: 'BOM-9001' });
    expect(a.body.errors, JSON.stringify(a.body.errors)).toBeUndefined();
    expect(b.body.errors, JSON.stringify(b.body.errors)).toBeUndefined();
    expect(a.body.data.bom.subAssemblyLines[0].assembly.subAssemblyLines).toEqual([]);
    let deepest = b.body.data.bom.subAssemblyLines[0].assembly;
    for (let level = 2; level <= 5; level++) deepest = deepest.subAssemblyLines[0].assembly;
    expect(deepest.assemblyId).toBe('ASM-5');
    expect(deepest.rawMaterialLines).toHaveLength(24);
    expect(deepest.rawMaterialLines[0].material).toEqual({ variantId: '505000', levels: [
      { available: '10', location: { name: 'Main Workshop' } }, { available: '5', location: { name: 'Downtown Store' } }] });
    expect(deepest.rawMaterialLines[1].material).toEqual({ variantId: 'VMAT-VAR-5-1', levels: [{ available: '1', location: { name: 'Downtown Store' } }] });
    console.info(`BOM tree: ${a.statements} statements for 1 assembly × 2 lines, ${b.statements} for a chain of 6 assemblies × 24 lines`);
    expect(b.statements).toBe(a.statements);
    expect(b.statements).toBeLessThanOrEqual(16);
  });

  it('loaders keep what a request read until clearAll: a write in the same request reads back its own change after clearAll', async () => {
    const ctx = shopContext(t.orm, shop);
    const loaders = loadersOf(ctx);
    expect((await loaders.material.load('VMAT-VAR-0002'))?.productName).toBe('Fragrance oil');
    await updateMaterial(ctx, 'VMAT-VAR-0002', { productName: 'Fragrance oil (lavender)' });
    expect((await loaders.material.load('VMAT-VAR-0002'))?.productName).toBe('Fragrance oil');
    loaders.clearAll();
    expect((await loaders.material.load('VMAT-VAR-0002'))?.productName).toBe('Fragrance oil (lavender)');
    expect(loadersOf(shopContext(t.orm, shop))).not.toBe(loaders);
  });

  it('Order carries the platform order and its breakdown, the figures of orderBomBreakdown', async () => {
    const { body } = await gql(ordersKey, `{ order(id: "gid://shopify/Order/5001") { orderId name lineItems { variantId title quantity }
        breakdown { orderId boms { bomId orderQuantity } totalMaterials { variantId totalQuantity } otherItems { title quantity } }
        atStore: breakdown(locationId: "102") { totalMaterials { variantId totalQuantity } } }
      orderBomBreakdown(id: "5001") { orderId boms { bomId orderQuantity } totalMaterials { variantId totalQuantity } otherItems { title quantity } }
      store: orderBomBreakdown(id: "5001", locationId: "102") { totalMaterials { variantId totalQuantity } } }`);
    expect(body.errors).toBeUndefined();
    const order = body.data.order;
    expect(order).toMatchObject({ orderId: '5001', name: '#1001' });
    expect(order.lineItems).toEqual([
      { variantId: '44100', title: 'Large candle', quantity: '2' },
      { variantId: '44200', title: 'Small candle', quantity: '3' },
      { variantId: '44999', title: 'Gift card', quantity: '1' },
    ]);
    expect(order.breakdown).toEqual(body.data.orderBomBreakdown);
    expect(order.atStore).toEqual(body.data.store);
  });

  it('Order.breakdown of a location the shop does not have is NOT_FOUND', async () => {
    const { body } = await gql(ordersKey, '{ order(id: "5001") { breakdown(locationId: "999") { orderId } } }');
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('a key of one shop never reaches another shop\'s orders (NOT_FOUND) or follows links into it', async () => {
    const order = await gql(otherKey, '{ order(id: "5001") { orderId } }');
    expect(order.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const bom = await gql(otherKey, '{ bom(bomId: "BOM-1001") { subAssemblyLines { assembly { assemblyId } } } }');
    expect(bom.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
