import { expect } from 'vitest';
import { toDecimalString } from '../../src/kernel/decimals.ts';
import { allBomViews } from '../../src/modules/boms/bom.service.ts';
import { shopContext } from './bom-context.ts';
import type { TestApp } from './test-app.ts';
import { isPayload, outcome, resultOf, type Failure } from './graphql-payloads.ts';

// Shared by the catalogue write tests (test/boms/catalog-*.test.ts).

export interface GqlResult { data: any; errors?: { message: string; extensions: { code: string } }[] }

/** POST /graphql; returns the body. */
export async function gql(t: TestApp, key: string, query: string, variables: Record<string, unknown> = {}): Promise<GqlResult> {
  const res = await t.request({ method: 'POST', url: '/graphql', key, payload: { query, variables } });
  expect(res.statusCode).toBeLessThan(500);
  return res.json();
}

/**
 * The one failure of a document: the user error of its one failed mutation (its result null), or
 * its one GraphQL error (a scope, a limit, a query's NOT_FOUND).
 */
export function failure(result: GqlResult): Failure {
  const failed = Object.entries(result.data ?? {}).filter(([, v]) => isPayload(v) && v.userErrors.length > 0);
  if (failed.length > 0) {
    expect(failed, 'one mutation failed').toHaveLength(1);
    return outcome(result, failed[0]![0]).failure!;
  }
  expect(result.errors, JSON.stringify(result.data)).toHaveLength(1);
  const [error] = result.errors!;
  return { kind: 'error', code: error!.extensions.code, message: error!.message };
}

/** Every mutation of the document succeeded; returns its data with each payload replaced by its result. */
export function ok(result: GqlResult): any {
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return Object.fromEntries(Object.entries(result.data ?? {}).map(([key, value]) => {
    if (!isPayload(value)) return [key, value];
    expect(value.userErrors, key).toEqual([]);
    return [key, resultOf(value)];
  }));
}

/**
 * The REST BOM list (read from the stored roll-up) against a fresh computation of every BOM from
 * the current rows: each listed BOM's four costs must be equal. Returns the list's items by id.
 */
export async function expectListCostsCurrent(t: TestApp, shopId: string, key: string): Promise<Record<string, any>> {
  const list = await t.get('/api/v1/bills-of-materials?pageSize=1000', key);
  expect(list.status).toBe(200);
  const fresh = new Map((await allBomViews(shopContext(t.orm, shopId))).map((b) => [b.bomId, b]));
  const items: Record<string, any> = {};
  for (const item of list.body.data.items) {
    const view = fresh.get(item.bomId)!;
    expect({ bomId: item.bomId, raw: item.totalRawMaterialCost, sub: item.totalSubAssemblyCost, cost: item.directCostFactorCost, total: item.totalCost }).toEqual({
      bomId: view.bomId, raw: Number(toDecimalString(view.totalRawMaterialCost)), sub: Number(toDecimalString(view.totalSubAssemblyCost)),
      cost: Number(toDecimalString(view.directCostFactorCost)), total: Number(toDecimalString(view.totalCost)),
    });
    items[item.bomId] = item;
  }
  return items;
}
