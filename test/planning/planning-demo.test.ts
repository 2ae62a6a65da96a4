import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('plan-demo');
const demo = JSON.parse(readFileSync(new URL('../../data/demo-dataset.json', import.meta.url), 'utf8'));

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset({ ...demo, shop: { ...demo.shop, id: shop } }));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

const PLAN = `query($asOf: Date, $locations: [ID!]) { planning(asOf: $asOf, locationIds: $locations) { shopId asOf
  buySuggestions { variantId locationId quantity net needBy orderBy late essential }
  makeSuggestions { itemType itemId variantId locationId quantity needBy startBy late demands { sourceType sourceId quantity needBy } otherDemandCount }
  shortages { variantId locationId required onHand allocated net needBy essential demands { sourceType sourceId quantity needBy } otherDemandCount }
  unlocated { itemId orderId quantity } } }`;

describe('planning on the demo shop', () => {
  it('probe', async () => {
    const res = await t.graphql(key, PLAN, { asOf: '2026-11-12' });
    console.log(JSON.stringify(res.body, null, 1), res.statements);
    expect(res.body.errors).toBeUndefined();
  });
});
