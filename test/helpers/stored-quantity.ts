import { expect } from 'vitest';
import { exact } from '../../src/kernel/numbers/index.ts';
import type { TestApp } from './test-app.ts';

// The stored inventory quantity (material_quantities.inventory_quantity, kept by triggers on the levels
// and the materials) checked
// against its definition, and the quantity-sorted list against the order its own figures give.

/**
 * The materials of a shop whose stored quantity differs from the definition read from scratch (or is missing): the
 * cached platform total for platform-linked materials, the sum of the levels for virtual ones.
 */
export async function storedQuantityMismatches(t: TestApp, shopId: string): Promise<unknown[]> {
  return t.orm.em.fork().getConnection().execute(`select m.variant_id, q.inventory_quantity::text as stored, d.defined::text as defined
    from materials m left join material_quantities q on q.shop_id = m.shop_id and q.variant_id = m.variant_id cross join lateral (select case when m.origin = 'platform' then coalesce(m.cached_quantity, 0)
      else coalesce((select sum(l.available) from material_levels l where l.shop_id = m.shop_id and l.variant_id = m.variant_id), 0) end as defined) d
    where m.shop_id = ? and q.inventory_quantity is distinct from d.defined`, [shopId]);
}

/** Every page of `GET /raw-materials?sortBy=inventoryQuantity&sortOrder=<dir>`, as `variantId=quantity`, in the list's order. */
async function quantitySorted(t: TestApp, key: string, dir: 'asc' | 'desc', pageSize: number): Promise<{ id: string; q: string }[]> {
  const out: { id: string; q: string }[] = [];
  for (let page = 1; ; page++) {
    const res = await t.request({ method: 'GET', url: `/api/v1/raw-materials?sortBy=inventoryQuantity&sortOrder=${dir}&pageSize=${pageSize}&page=${page}`, key });
    expect(res.statusCode).toBe(200);
    // One statement per page, whatever the shop's size (the API-key lookup is not counted).
    expect(res.headers['x-query-count']).toBe('1');
    const data = res.json().data;
    out.push(...data.items.map((m: { variantId: string; inventoryQuantity: number | string }) => ({ id: m.variantId, q: exact(m.inventoryQuantity).toFixed() })));
    if (page >= data.totalPages) return out;
  }
}

const bytes = (a: string, b: string) => (Buffer.compare(Buffer.from(a), Buffer.from(b)));

/**
 * The quantity sort answers exactly what its definition gives: in both directions, paged, every
 * material once, ordered by the quantity each row shows (exactly compared), ties on variantId ascending.
 * Returns the quantities (variantId → quantity) for comparisons across writes.
 */
export async function expectQuantitySortExact(t: TestApp, shopId: string, key: string): Promise<Map<string, string>> {
  expect(await storedQuantityMismatches(t, shopId)).toEqual([]);
  for (const dir of ['asc', 'desc'] as const) {
    const listed = await quantitySorted(t, key, dir, 3);
    const expected = [...listed].sort((a, b) => {
      const c = exact(a.q).cmp(exact(b.q));
      return (dir === 'asc' ? c : -c) || bytes(a.id, b.id);
    });
    expect(listed).toEqual(expected);
    expect(new Set(listed.map((r) => r.id)).size).toBe(listed.length);
  }
  return new Map((await quantitySorted(t, key, 'asc', 1000)).map((r) => [r.id, r.q]));
}
