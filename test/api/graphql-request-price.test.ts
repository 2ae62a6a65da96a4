import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { operationPrice } from '../../src/http/admission/request-price.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { WHOLE_SHOP_WORK } from '../../src/kernel/graphql-limits.ts';

/**
 * Two measures of a request, never mixed (src/http/admission/request-price.ts): tokens — the REST calls it
 * stands for, what the rate limit spends — and work — what its arguments make the server compute,
 * whatever it selects, what admission to costly work counts.
 */
const schema = getSchema();
const read = (path: string) => readFileSync(new URL(`../../rest-facade/routes/${path}`, import.meta.url), 'utf8');
const breakdownFields = read('orders/breakdown-fields.graphql');
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(1000 + i));
/** `aliases` breakdown batches selecting `selection`, the ids in a variable. */
const batches = (aliases: number, selection: string) =>
  `query B($ids: [String!]!) { ${Array.from({ length: aliases }, (_, i) => `a${i}: orderBomBreakdowns(ids: $ids) ${selection}`).join(' ')} }`;
const price = (query: string, variables: Record<string, unknown> = {}, operationName?: string) => operationPrice(schema, parse(query), variables, operationName);

describe('work: what the arguments make the server compute, whatever the selection', () => {
  it('30 aliased batches of 50 orders are 1,500 breakdowns of work, selecting only notFound or everything (and 30 tokens)', () => {
    expect(price(batches(30, '{ notFound }'), { ids: ids(50) })).toEqual({ tokens: 30, work: 1500 });
    expect(price(batches(30, '{ __typename }'), { ids: ids(50) })).toEqual({ tokens: 30, work: 1500 });
    expect(price(`${batches(30, '{ notFound items { ...BreakdownFields } }')} ${breakdownFields}`, { ids: ids(50) })).toEqual({ tokens: 30, work: 1500 });
  });

  it('the REST breakdown batch of 50 orders is 50, one order 1; a page is its size (the default page 50); a single read or the location list 1', () => {
    const work = (query: string, variables: Record<string, unknown> = {}) => price(query, variables).work;
    expect(work(read('orders/batch.graphql') + breakdownFields, { ids: ids(50) })).toBe(50);
    expect(work(read('orders/batch.graphql') + breakdownFields, { ids: ids(1) })).toBe(1);
    expect(work(read('boms/list.graphql'), { page: 1, pageSize: 1000 })).toBe(1000);
    expect(work('{ rawMaterials { items { variantId } } }')).toBe(50);
    expect(work('{ bomConnection(first: 200) { nodes { bomId } } }')).toBe(200);
    expect(work(read('locations/locations.graphql'))).toBe(1);
    expect(work('{ bom(bomId: "B") { bomId } }')).toBe(1);
  });

  it('a nested field\'s rows and locations count once per row of its parent', () => {
    const work = (query: string, variables: Record<string, unknown> = {}) => price(query, variables).work;
    // 10 materials, each with 100 adjustments and levels at 3 locations.
    expect(work('{ rawMaterialConnection(first: 10) { nodes { adjustments(first: 100) { totalCount } levels(locationIds: ["1", "2", "3"]) { available } } } }'))
      .toBe(10 + 10 * (100 + 3));
    expect(work('query S($l: [ID!]) { rawMaterialInventory(variantId: "1", locationIds: $l) { __typename } }', { l: ids(100) })).toBe(100);
  });

  it('the whole shop\'s plan is costly work whatever it selects (it holds the shop in memory): plans take turns at the work gate; a what-if plans twice', () => {
    const work = (query: string, variables: Record<string, unknown> = {}) => price(query, variables).work;
    expect(work('{ planning { asOf } }')).toBe(WHOLE_SHOP_WORK);
    expect(work('query P($l: [ID!]) { planning(locationIds: $l) { asOf } }', { l: ['101', '102'] })).toBe(WHOLE_SHOP_WORK + 2);
    expect(work('{ planningWhatIf(bomId: "B", quantity: "1", locationId: "101", needBy: "2026-11-12") { extraMakes { itemId } } }')).toBe(2 * WHOLE_SHOP_WORK);
    expect(WHOLE_SHOP_WORK).toBeGreaterThan(loadConfig({}).heavyWork);
  });

  it('fragments count what they bring wherever they are spread; a skipped field counts nothing', () => {
    const viaFragment = price('query B($ids: [String!]!) { ...Q } fragment Q on Query { a: orderBomBreakdowns(ids: $ids) { notFound } b: orderBomBreakdowns(ids: $ids) { notFound } }', { ids: ids(50) });
    expect(viaFragment).toEqual({ tokens: 2, work: 100 });
    const skipped = price('query B($ids: [String!]!, $no: Boolean!) { a: orderBomBreakdowns(ids: $ids) @skip(if: $no) { notFound } locations { locationId } }', { ids: ids(50), no: true });
    expect(skipped).toEqual({ tokens: 1, work: 1 });
  });
});

describe('tokens: the REST calls a GraphQL operation stands for', () => {
  it('one per root field, each alias counting; __typename and introspection count nothing', () => {
    expect(price('{ locations { locationId } }').tokens).toBe(1);
    expect(price('{ a: locations { locationId } b: locations { name } assignees { assigneeId } }').tokens).toBe(3);
    expect(price('{ __typename locations { locationId } }').tokens).toBe(1);
    expect(price('{ __schema { queryType { name } } }').tokens).toBe(0);
  });

  it('fields sharing a response key run once and count once; only the named operation counts', () => {
    expect(price('{ locations { locationId } locations { name } }').tokens).toBe(1);
    expect(price('query A { locations { locationId } } query B { a: locations { name } b: assignees { assigneeId } }', {}, 'B').tokens).toBe(2);
  });

});
