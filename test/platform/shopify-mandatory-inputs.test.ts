import { randomBytes } from 'node:crypto';
import { getNamedType, isInputObjectType, parse, TypeInfo, visit, visitWithTypeInfo, type GraphQLInputObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopifyAdminSchema } from '../../src/platform/shopify/admin-schema/index.ts';
import { BULK_QUERIES, REQUEST_OPERATIONS, requestOperation } from '../../src/platform/shopify/operations.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { mandatoryInputFields } from '../helpers/shopify-emulator/mandatory-inputs.ts';

// Rule (Admin API 2026-04 and later): an input field the published schema types nullable but
// describes as mandatory — `changeFromQuantity` of every inventory change, "you must explicitly pass
// in a value, even if that value is `null`, or the mutation returns an error" — must be sent on
// every call. GraphQL validation cannot catch it, so this guard reads the vendored schema: the
// emulator refuses any request that leaves such a field out, and every operation of bomcore's that
// can reach one is named here and exercised against the emulator (the real pushes in
// shopify-push.test.ts, the refusal below).

const schema = shopifyAdminSchema();

/** The mandatory input fields an operation can reach through its arguments, as `Type.field`. */
function reachableMandatory(text: string): string[] {
  const mandatory = mandatoryInputFields(schema);
  const found = new Set<string>();
  const seen = new Set<string>();
  const walk = (type: GraphQLInputObjectType) => {
    if (seen.has(type.name)) return;
    seen.add(type.name);
    for (const field of mandatory.get(type.name)?.keys() ?? []) found.add(`${type.name}.${field}`);
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (isInputObjectType(named)) walk(named);
    }
  };
  const typeInfo = new TypeInfo(schema);
  visit(parse(text), visitWithTypeInfo(typeInfo, {
    Argument: () => {
      const named = getNamedType(typeInfo.getArgument()?.type);
      if (named && isInputObjectType(named)) walk(named);
    },
  }));
  return [...found].sort();
}

describe('mandatory input fields of the Admin API (read from the published 2026-10 schema)', () => {
  it('the schema\'s descriptions are read: changeFromQuantity is mandatory on adjust and set changes, a conditional "required when" is not', () => {
    const mandatory = mandatoryInputFields(schema);
    expect(mandatory.get('InventoryChangeInput')?.has('changeFromQuantity')).toBe(true);
    expect(mandatory.get('InventoryQuantityInput')?.has('changeFromQuantity')).toBe(true);
    // "Required when there's no corresponding definition…": a condition on the call, not a mandate.
    expect(mandatory.get('MetafieldsSetInput')).toBeUndefined();
  });

  it('every operation bomcore sends that can reach a mandatory field is one this suite exercises against the emulator', () => {
    const reaching = Object.fromEntries([...REQUEST_OPERATIONS, ...BULK_QUERIES]
      .map(([name, text]) => [name, reachableMandatory(text)] as const)
      .filter(([, fields]) => fields.length > 0));
    // A new operation that reaches one fails here until its test proves Shopify's emulator accepts what bomcore sends.
    expect(reaching).toEqual({
      'inventory-adjust': ['InventoryChangeInput.changeFromQuantity'],
      'inventory-set': ['InventoryQuantityInput.changeFromQuantity'],
    });
  });
});

describe('the emulator holds every call to them, as Shopify does', () => {
  let emu: ShopifyEmulator;
  let store: EmulatedShop;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  let itemGid: string;

  beforeAll(async () => {
    emu = await startShopifyEmulator();
    store = emu.addShop({ domain: 'mandatory-inputs.myshopify.com', token, seed: toDataset(datasetJson('mandatory-inputs')).platform });
    itemGid = `gid://shopify/InventoryItem/${store.store.variantOrThrow('44001').inventoryItemId}`;
  });
  afterAll(() => emu?.close());

  /** bomcore's own InventoryAdjust operation, sent with these changes. */
  const adjust = async (change: Record<string, unknown>, key = randomBytes(6).toString('hex')) => {
    const res = await fetch(`${emu.url}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
      body: JSON.stringify({ query: requestOperation('inventory-adjust'), variables: { key, input: { name: 'available', reason: 'correction', changes: [{ inventoryItemId: itemGid, locationId: 'gid://shopify/Location/101', delta: -2, ...change }] } } }),
    });
    return (await res.json()) as { data?: { inventoryAdjustQuantities: { userErrors: { code: string }[] } }; errors?: { message: string }[] };
  };

  it('an inventory change without changeFromQuantity is refused, naming the field and where, and moves nothing', async () => {
    const before = store.available('44001', '101');
    const answer = await adjust({});
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.[0]?.message).toMatch(/^InventoryChangeInput\.changeFromQuantity must be given at inventoryAdjustQuantities\.input\.changes\[0\]: .*mandatory/);
    expect(store.available('44001', '101')).toBe(before);
  });

  it('an explicit null skips the compare-and-swap check; a stale known quantity is CHANGE_FROM_QUANTITY_STALE; the current one applies', async () => {
    const before = store.available('44001', '101')!;
    expect((await adjust({ changeFromQuantity: null })).data?.inventoryAdjustQuantities.userErrors).toEqual([]);
    expect(store.available('44001', '101')).toBe(before - 2);
    expect((await adjust({ changeFromQuantity: before })).data?.inventoryAdjustQuantities.userErrors.map((e) => e.code)).toEqual(['CHANGE_FROM_QUANTITY_STALE']);
    expect(store.available('44001', '101')).toBe(before - 2);
    expect((await adjust({ changeFromQuantity: before - 2 })).data?.inventoryAdjustQuantities.userErrors).toEqual([]);
    expect(store.available('44001', '101')).toBe(before - 4);
  });
  /** bomcore's own InventorySet operation (storefront stock), sent with this quantity and key (null: no @idempotent directive). */
  const set = async (quantity: Record<string, unknown>, key: string | null = randomBytes(6).toString('hex')) => {
    const query = key === null ? requestOperation('inventory-set').replace(' @idempotent(key: $key)', '').replace(', $key: String!', '') : requestOperation('inventory-set');
    const res = await fetch(`${emu.url}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
      body: JSON.stringify({ query, variables: { ...(key === null ? {} : { key }), input: { name: 'available', reason: 'correction', referenceDocumentUri: 'bomcore://boms/BOM-1001/storefront-stock',
        quantities: [{ inventoryItemId: itemGid, locationId: 'gid://shopify/Location/101', quantity: 7, ...quantity }] } } }),
    });
    return (await res.json()) as { data?: { inventorySetQuantities: { userErrors: { code: string }[] } }; errors?: { message: string }[] };
  };

  it('inventorySetQuantities: a quantity without changeFromQuantity, or a call without @idempotent, is refused and sets nothing', async () => {
    const before = store.available('44001', '101')!;
    const missing = await set({});
    expect(missing.errors?.[0]?.message).toMatch(/^InventoryQuantityInput\.changeFromQuantity must be given at inventorySetQuantities\.input\.quantities\[0\]: .*mandatory/);
    const unkeyed = await set({ changeFromQuantity: before }, null);
    expect(unkeyed.errors?.[0]?.message).toMatch(/@idempotent directive is required/);
    expect(store.available('44001', '101')).toBe(before);
  });

  it('inventorySetQuantities: a stale changeFromQuantity is CHANGE_FROM_QUANTITY_STALE and sets nothing; the current one sets; the same key replays', async () => {
    const before = store.available('44001', '101')!;
    expect((await set({ changeFromQuantity: before + 1 })).data?.inventorySetQuantities.userErrors.map((e) => e.code)).toEqual(['CHANGE_FROM_QUANTITY_STALE']);
    expect(store.available('44001', '101')).toBe(before);
    const key = randomBytes(6).toString('hex');
    expect((await set({ changeFromQuantity: before }, key)).data?.inventorySetQuantities.userErrors).toEqual([]);
    expect(store.available('44001', '101')).toBe(7);
    // The retry after a lost answer: same key, same input, the first answer again (not a stale refusal).
    expect((await set({ changeFromQuantity: before }, key)).data?.inventorySetQuantities.userErrors).toEqual([]);
    expect(store.available('44001', '101')).toBe(7);
  });
});
