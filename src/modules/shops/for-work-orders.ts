import type { Em } from '../../db/orm.ts';
import { sql, type RawBuilder } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DEFAULT_SHOP_PLAN, type ShopPlan } from './shop-vocabulary.ts';
import { shopsSql } from './tables.ts';

// What the work-orders module (a higher tier) reads of its shop.

/** The shop's settings a build run needs: its plan (an enhanced-plan operation) and whether levels may go below zero. One read. */
export async function buildRunSettings(em: Em, shopId: string): Promise<{ plan: ShopPlan; allowNegative: boolean }> {
  const [row] = await runSql(em, shopsSql.selectFrom('shops').select(['plan', 'allow_negative_inventory']).where('id', '=', shopId));
  return { plan: row?.plan ?? DEFAULT_SHOP_PLAN, allowNegative: row?.allow_negative_inventory === true };
}

/** The same settings as one JSON value a work-order statement selects beside its own columns (`readBuildRunSettings` reads it). */
export function buildRunSettingsJson(shopId: string): RawBuilder<unknown> {
  return sql`(${shopsSql.selectFrom('shops').select(sql`json_build_object('plan', plan, 'allowNegative', allow_negative_inventory)`.as('s')).where('id', '=', shopId)})`;
}

/** Reads what `buildRunSettingsJson` selected (parsed by PostgreSQL's driver, text from the embedded one; null: no shop row). */
export function readBuildRunSettings(value: unknown): { plan: ShopPlan; allowNegative: boolean } {
  const row = (typeof value === 'string' ? JSON.parse(value) : value) as { plan: ShopPlan | null; allowNegative: boolean | null } | null;
  return { plan: row?.plan ?? DEFAULT_SHOP_PLAN, allowNegative: row?.allowNegative === true };
}
