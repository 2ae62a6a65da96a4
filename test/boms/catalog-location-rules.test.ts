import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPendingBillVersions } from '../../src/modules/boms/bill-version-write.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { expectListCostsCurrent, failure, gql, ok } from '../helpers/catalog-helpers.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

// Location rules written through GraphQL, on the BOM test shop (test/helpers/bom-dataset.ts):
// BOM-1001 = 0.4 soy wax (44001) + ASM-1 + ASM-2 + 0.25 CF-1, with rules at 102 (wax → jar) and
// 103 (adds ASM-4); ASM-3 contains 2 ASM-1; BOM-1003 (inactive) uses ASM-4.

let t: TestApp;
const shop = uniqueShopId('cat-rules');
const other = uniqueShopId('cat-rules-other');
let key: string;
let otherKey: string;
let readKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(bomShopDataset(shop));
  await t.load(bomShopDataset(other));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

const SET_BOM_RULE = `mutation($id: String!, $loc: String!, $overrides: [LocationRuleOverrideInput!]!) {
  setBomLocationRule(bomId: $id, locationId: $loc, overrides: $overrides, savedBy: "Ana") { locationRuleSave { ownerType ownerId locationId billVersion } ${USER_ERRORS} } }`;
const SET_ASM_RULE = `mutation($id: String!, $loc: String!, $overrides: [LocationRuleOverrideInput!]!) {
  setAssemblyBillLocationRule(assemblyId: $id, locationId: $loc, overrides: $overrides) { locationRuleSave { billVersion } ${USER_ERRORS} } }`;
const REMOVE_BOM_RULE = `mutation($id: String!, $loc: String!) { removeBomLocationRule(bomId: $id, locationId: $loc) { locationRuleSave { billVersion } ${USER_ERRORS} } }`;
const RULES = `query($id: String!) { bomLocationRules(bomId: $id) { locations { locationId usesBaseRecipe rules { ownerId lineChanges { change nodeId replacesNodeId quantity } } } } }`;

const rulesAt = async (locationId: string) =>
  ok(await gql(t, key, RULES, { id: 'BOM-1001' })).bomLocationRules.locations.find((l: any) => l.locationId === locationId);

describe('location rules', () => {
  it('setBomLocationRule replaces the rule at a location, the BOM reads it back, and a version records one rule and its overrides changed', async () => {
    const saved = ok(await gql(t, key, SET_BOM_RULE, { id: 'BOM-1001', loc: '101', overrides: [
      { action: 'adjust', nodeId: '44001', quantity: '0.5' },
    ] }));
    // The dataset loaded versions 1–4 of BOM-1001.
    expect(saved.setBomLocationRule).toEqual({ ownerType: 'bom', ownerId: 'BOM-1001', locationId: '101', billVersion: 5 });
    expect((await rulesAt('101')).rules).toEqual([{ ownerId: 'BOM-1001', lineChanges: [{ change: 'adjust', nodeId: '44001', replacesNodeId: null, quantity: '0.5' }] }]);
    expect(await fillPendingBillVersions(t.orm.em.fork(), { shopIds: [shop], limit: 10 })).toBe(1);
    const v = ok(await gql(t, key, '{ billVersions(ownerType: bom, ownerId: "BOM-1001", limit: 1) { versions { version trigger savedBy } } }')).billVersions.versions[0];
    expect(v).toEqual({ version: 5, trigger: 'location_rules', savedBy: 'Ana' });
    // Rules never change base-recipe costs.
    await expectListCostsCurrent(t, shop, key);
  });

  it.each([
    ['a node that is not a line of the bill', [{ action: 'remove', nodeId: 'VMAT-VAR-0002' }], 'overrides[0].nodeId: "VMAT-VAR-0002" is not a line of BOM-1001'],
    ['a replacement of another kind', [{ action: 'replace', nodeId: '44001', replacementNodeId: 'ASM-4' }], 'overrides[0].replacementNodeId: unknown material "ASM-4"'],
    ['an add of a node already a line', [{ action: 'add', nodeId: 'ASM-1', quantity: '1' }], 'overrides[0].nodeId: "ASM-1" is already a line of BOM-1001'],
    ['waste on an assembly line', [{ action: 'adjust', nodeId: 'ASM-2', quantity: '2', wastePercentage: '5' }], 'overrides[0].wastePercentage: wastePercentage applies to raw-material lines only'],
    ['two overrides of one node', [{ action: 'remove', nodeId: 'ASM-1' }, { action: 'adjust', nodeId: 'ASM-1', quantity: '2' }], 'overrides[1].nodeId: "ASM-1" already has an override'],
    ['an adjust that sets nothing', [{ action: 'adjust', nodeId: 'ASM-1' }], 'overrides[0]: an "adjust" override must set quantity or wastePercentage'],
    ['a negative quantity', [{ action: 'add', nodeId: 'VMAT-VAR-0002', quantity: '-2' }], 'overrides[0].quantity'],
  ])('%s is INVALID_INPUT naming the override, and the rule there is unchanged', async (_label, overrides, message) => {
    const error = failure(await gql(t, key, SET_BOM_RULE, { id: 'BOM-1001', loc: '102', overrides }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(message);
    expect((await rulesAt('102')).rules[0].lineChanges).toEqual([{ change: 'replace', nodeId: '44002', replacesNodeId: '44001', quantity: '0.5' }]);
  });

  it('a rule that closes a loop of assembly bills at its location is refused, naming the location and the path', async () => {
    const error = failure(await gql(t, key, SET_ASM_RULE, { id: 'ASM-1', loc: '101', overrides: [{ action: 'add', nodeId: 'ASM-3', quantity: '1' }] }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('overrides: would make a recipe cycle at location 101');
    expect(error.message).toContain('ASM-1 → ASM-3 → ASM-1');
  });

  it('an assembly an active BOM reaches only through a location rule cannot be archived (CONFLICT naming the BOM)', async () => {
    const error = failure(await gql(t, key, `mutation { setAssemblyBillArchived(assemblyId: "ASM-4") { catalogArchive { archived } ${USER_ERRORS} } }`));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain('BOM-1001');
  });

  it('removeBomLocationRule brings the base recipe back at that location; removing it again saves nothing', async () => {
    expect(ok(await gql(t, key, REMOVE_BOM_RULE, { id: 'BOM-1001', loc: '101' })).removeBomLocationRule.billVersion).toBe(6);
    expect((await rulesAt('101')).usesBaseRecipe).toBe(true);
    expect(ok(await gql(t, key, REMOVE_BOM_RULE, { id: 'BOM-1001', loc: '101' })).removeBomLocationRule.billVersion).toBeNull();
  });

  it('an unknown location or another shop\'s bill is NOT_FOUND; a read-only key is FORBIDDEN_SCOPE', async () => {
    expect(failure(await gql(t, key, SET_BOM_RULE, { id: 'BOM-1001', loc: '999', overrides: [] })).code).toBe('NOT_FOUND');
    // BOM-1050 exists in this shop only.
    ok(await gql(t, key, `mutation { createBom(input: { bomId: "BOM-1050", name: "Only here" }) { bomSave { billVersion } ${USER_ERRORS} } }`));
    expect(failure(await gql(t, otherKey, SET_BOM_RULE, { id: 'BOM-1050', loc: '101', overrides: [] })).code).toBe('NOT_FOUND');
    expect(failure(await gql(t, readKey, SET_BOM_RULE, { id: 'BOM-1001', loc: '101', overrides: [] })).code).toBe('FORBIDDEN_SCOPE');
    expect((await rulesAt('101')).usesBaseRecipe).toBe(true);
  });
});
