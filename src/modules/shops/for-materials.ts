import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Expression } from 'kysely';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { Shop } from './shop.entity.ts';

// What the materials module (a higher tier) reads of its shop's settings, as fragments of its own
// statements (a material row and the shop's flag stay one statement).

const shopsSql = sqlBuilder<InferKyselyDB<typeof Shop>>();

/** Whether the shop allows negative inventory, as a scalar subquery correlated to the caller's row. */
export function shopAllowsNegativeInventory(shopId: Expression<string>) {
  return shopsSql.selectFrom('shops as s').select('s.allow_negative_inventory').where('s.id', '=', shopId).$asScalar();
}
