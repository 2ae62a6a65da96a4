import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter } from '../../db/columns.ts';
import { BILL_OWNER_TYPES, BOM_STATUSES } from './recipe-vocabulary.ts';

// The stored cost roll-up and the BOM list's keys. Derived data only: `cost-rollup.repository.ts`
// is the one code that writes these tables (on every write that changes a recipe, a cost factor or
// a material cost), and a read never recomputes them.

/** Unscaled numeric: products along a recipe path keep every digit (rounded only in responses). */
const exactNumeric = () => p.decimal().columnType('numeric');

/**
 * The base-recipe cost of one bill (docs/datasets.md): raw lines unitCost × quantity × (1 + waste/100),
 * sub lines quantity × the assembly bill's total, cost-factor lines quantity × unitCost. For an
 * assembly bill `totalCost` is its unit cost.
 */
export const BillCost = defineEntity({
  name: 'BillCost',
  tableName: 'bill_costs',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    ownerType: p.enum(BILL_OWNER_TYPES).primary(),
    ownerId: p.text().primary(),
    rawMaterialCost: exactNumeric(),
    subAssemblyCost: exactNumeric(),
    costFactorCost: exactNumeric(),
    totalCost: exactNumeric(),
  },
  // No other index: every read of this table is by primary key (lookups while rolling up, page rows).
});

/**
 * One row per BOM: everything the list filters, sorts, searches and sums on, so a page is read
 * from this one table. Ranks are the order of the list's collation (case- and accent-insensitive,
 * digit runs by value; equal values share a rank), computed when a BOM or its finished good
 * changes. `status`, `variantId` and `totalCost` are copies of the BOM's status, finished-good variant
 * and roll-up total; the finished good's productId, sku and price mirror its platform variant as of the
 * last refresh (null when the platform does not know the variant).
 */
export const BomListEntry = defineEntity({
  name: 'BomListEntry',
  tableName: 'bom_list_entries',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    bomId: p.text().primary(),
    status: p.enum(BOM_STATUSES),
    variantId: p.text().nullable(),
    totalCost: exactNumeric(),
    nameRank: p.integer(),
    bomIdRank: p.integer(),
    skuRank: p.integer().nullable(),
    productId: p.text().nullable(),
    sku: p.text().nullable(),
    price: decimal().nullable(),
    searchName: p.text(),
    searchSku: p.text().nullable(),
    searchBomId: p.text(),
  },
  indexes: [
    { properties: ['shopId', 'nameRank', 'bomIdRank'] },
    { properties: ['shopId', 'bomIdRank'] },
    { properties: ['shopId', 'skuRank', 'bomIdRank'] },
    { properties: ['shopId', 'price', 'bomIdRank'] },
    { properties: ['shopId', 'totalCost', 'bomIdRank'] },
    { properties: ['shopId', 'status', 'bomIdRank'] },
  ],
});

/**
 * The BOM list's stats over every entry of the shop (every BOM not archived), stored so the list
 * reads one row instead of aggregating the shop per request: entries by status (the total is
 * `active + inactive`), entries with a finished-good variant, and the sum of their total costs
 * (exact). Kept by the database: triggers on `bom_list_entries` add each statement's net change per
 * shop (migration Migration20261202090000). No code writes it; a shop without a row has no BOMs listed.
 */
export const BomListStats = defineEntity({
  name: 'BomListStats',
  tableName: 'bom_list_stats',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    active: p.integer(),
    inactive: p.integer(),
    platformLinked: p.integer(),
    totalValue: exactNumeric(),
  },
});
