import { ceilDiv } from '../../kernel/numbers/index.ts';
import { pageOf, type PageRequest } from '../../kernel/limits.ts';
import type { SortDirection } from '../../db/keyset.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { sql } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { rawUseCount } from '../boms/for-materials.ts';
import {
  MATERIAL_SORT_KEYS, materialCount, materialFilter, materialsFrom, materialSortOf, materialTieKey, type MaterialFilterParams,
} from './material-filters.ts';
import { materialColumns, toMaterialView } from './material-view.ts';
import { materialsSql } from './tables.ts';

export { MATERIAL_SORTS, type MaterialSort } from './material-filters.ts';

export interface MaterialListParams extends MaterialFilterParams, PageRequest {
  /** Unrecognised values are ignored (productName order). */
  sortBy: string | null;
  sortOrder: SortDirection;
}

/**
 * One page of the shop's raw materials, both origins in one query (platform rows mirror their
 * variant's catalogue fields), with the total count, the vendor list and the usage counts of the
 * page's rows. A single SQL round trip whatever the page size.
 *
 * O(page) where it can be: a search is one byte-compared `like` on the stored lowered
 * `search_text` (the same match as `ilike` on each field); every sort walks its index and stops
 * at the page (the quantity sort reads the stored quantity, `material_quantities`); the inventory quantities
 * and usage counts are computed for the page's rows only; without a filter the total count is the
 * shop's stored list count. A filtered total count reads every matching row (a substring search
 * has no index that counts).
 */
export async function listMaterials(ctx: ShopContext, params: MaterialListParams) {
  const { page, pageSize } = pageOf(params, 'rows');
  const filter = materialFilter(ctx.shopId, params);
  const sort = materialSortOf(params.sortBy);
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const order = [...MATERIAL_SORT_KEYS[sort].map((k) => sql`${k.key} ${sql.raw(`${dir}${k.nullable ? ' nulls last' : ''}`)}`), sql`${materialTieKey(sort)} asc`];
  // The page's rows in the same order: the quantity sort's key comes from its quantity row, carried by the page.
  const byQuantity = sort === 'inventoryQuantity';
  const pageOrder = byQuantity ? [sql`${sql.ref('m.sort_quantity')} ${sql.raw(dir)}`, sql`${sql.ref('m.variant_id')} collate "C" asc`] : order;

  const rows = await runSql(ctx.em, materialsSql
    // The vendor list is a loose index scan: one index probe per distinct vendor, not per material.
    .withRecursive('vendors(vendor)', (db) => db
      .selectNoFrom((eb) => eb.selectFrom('materials').select('vendor').where('shop_id', '=', ctx.shopId).where('vendor', '>', '')
        .orderBy('vendor').limit(1).as('vendor'))
      .unionAll(db.selectFrom('vendors as v')
        .select((eb) => eb.selectFrom('materials as m').select('m.vendor').where('m.shop_id', '=', ctx.shopId).whereRef('m.vendor', '>', 'v.vendor')
          .orderBy('m.vendor').limit(1).as('vendor'))
        .where('v.vendor', 'is not', null)))
    .with('page', () => materialsFrom(sort).selectAll('m').$if(byQuantity, (q) => q.select(sql<string>`q.inventory_quantity`.as('sort_quantity'))).where(filter)
      .$call((q) => order.reduce((o, key) => o.orderBy(key), q)).limit(pageSize).offset((page - 1) * pageSize))
    .selectFrom(sql`(select 1)`.as('one'))
    .leftJoin('page as m', (join) => join.onTrue())
    .select((eb) => [
      materialCount(ctx.shopId, params).as('totalCount'),
      eb.selectFrom('vendors as v').select(sql<string[] | string>`coalesce(json_agg(v.vendor order by v.vendor collate "C"), '[]'::json)`.as('vendors'))
        .where('v.vendor', 'is not', null).$asScalar().as('vendors'),
      ...materialColumns(eb),
      rawUseCount(eb.ref('m.shop_id').$notNull(), eb.ref('m.variant_id').$notNull(), 'bom').as('bomUsageCount'),
      rawUseCount(eb.ref('m.shop_id').$notNull(), eb.ref('m.variant_id').$notNull(), 'sub_assembly').as('subAssemblyUsageCount'),
    ])
    .$call((q) => pageOrder.reduce((o, key) => o.orderBy(key), q)));
  const first = rows[0]!;
  const totalCount = Number(first.totalCount);
  const vendors = typeof first.vendors === 'string' ? JSON.parse(first.vendors) as string[] : first.vendors;
  return {
    // The row of an empty page has no material (the left join finds none).
    items: rows.filter((r) => r.variantId !== null).map((r) => ({
      ...toMaterialView(r), bomUsageCount: Number(r.bomUsageCount), subAssemblyUsageCount: Number(r.subAssemblyUsageCount),
    })),
    totalCount,
    page,
    pageSize,
    totalPages: ceilDiv(totalCount, pageSize).toNumber(),
    availableVendors: vendors ?? [],
  };
}

/** One list row: a material with its usage counts. */
export type MaterialListRow = Awaited<ReturnType<typeof listMaterials>>['items'][number];
export type MaterialPage = Awaited<ReturnType<typeof listMaterials>>;
