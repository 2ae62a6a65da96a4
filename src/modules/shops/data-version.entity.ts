import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter } from '../../db/columns.ts';

/**
 * The shop's data version: a counter that the database itself raises, once per committed
 * transaction that changed any of the shop's rows (triggers of Migration20261130100000). Reads tag
 * their answers with it (docs/api-conventions.md, "Caching"); no code writes it.
 */
export const ShopDataVersion = defineEntity({
  name: 'ShopDataVersion',
  tableName: 'shop_data_versions',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    version: p.bigint('string'),
  },
});

/**
 * One row per writing transaction, inserted by the triggers at its first change and deleted at its
 * commit: its deferred trigger is what raises the versions at commit (the version rows are locked
 * last, so concurrent writers of one shop never deadlock on them). Never read by code.
 */
export const ShopDataVersionMark = defineEntity({
  name: 'ShopDataVersionMark',
  tableName: 'shop_data_version_marks',
  properties: {
    tx: p.bigint('string').primary().autoincrement(false).defaultRaw('txid_current()'),
  },
});
