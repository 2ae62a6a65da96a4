import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import { materialParents } from './material-parents.ts';
import type { RecipesTables } from './tables.ts';

/** The BOM table under an alias, for the work-order queries that name an item's bill (a typed table reference). */
export const bomsAs = <A extends string>(alias: A) => sql<Selectable<RecipesTables['boms']>>`boms`.as(alias);

/** The assembly-bill table under an alias, for the work-order queries that name an item's bill. */
export const assemblyBillsAs = <A extends string>(alias: A) => sql<Selectable<RecipesTables['assembly_bills']>>`assembly_bills`.as(alias);

/**
 * Every bill that consumes the material at any depth (materialParents) as a derived table under an
 * alias: `(owner_type, owner_id)` rows, one statement with the caller's query.
 */
export const billsConsumingAs = <A extends string>(shopId: string, variantId: string, alias: A) =>
  materialParents(shopId, variantId).selectFrom('parents').select(['owner_type', 'owner_id']).as(alias);
