import type { Em } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { shopsSql } from './tables.ts';

// What the orders module (a higher tier) reads of its shop's settings.


/** Whether the shop has opted in to the order metafield `material_requirements_json`. One read. */
export async function writesMaterialRequirementsMetafield(em: Em, shopId: string): Promise<boolean> {
  const [shop] = await runSql(em, shopsSql.selectFrom('shops').select('material_requirements_metafield').where('id', '=', shopId));
  return shop?.material_requirements_metafield === true;
}
