import type { Expression } from 'kysely';
import type { MaterialOrigin } from './catalog-vocabulary.ts';
import type { Em } from './orm-types.ts';

// What the recipes module reads of the modules above it (materials, stock). Recipes sit below them
// (.dependency-cruiser.cjs, MODULE_TIERS) and name none of their tables: the owners implement this
// interface (src/modules/materials/for-recipes.ts) and the composition root hands it to every shop
// context (`ShopContext.catalog`). Batch reads are one statement each; fragments are correlated
// subqueries or selects the recipes module joins into its own statements, so no statement is added.

/** A material as a recipe line shows it (also its JSON shape in `materialJson`). */
export interface MaterialInfo {
  variantId: string; origin: MaterialOrigin; productName: string; variantName: string | null; sku: string | null;
  unit: string | null; unitCost: string | null; isNonEssential: boolean;
  /** Whether the platform counts its stock (virtual materials always do): an untracked material is not stock and never limits buildable. */
  tracked: boolean;
}

/** Where a batch read runs: the caller's EntityManager (its transaction) and shop. */
export interface CatalogReadScope { em: Em; shopId: string }

export interface CatalogSources {
  /** Materials by variant id (unknown ids absent). One statement. */
  materials(scope: CatalogReadScope, variantIds: readonly string[]): Promise<MaterialInfo[]>;
  /** A select of (kind 'raw', id, archived) for the materials among `variantIds`, to union into one statement. */
  materialStates(shopId: string, variantIds: readonly string[]): Expression<{ kind: 'raw'; id: string; archived: boolean }>;
  /** A material's unit cost (null: unknown material or no cost): a correlated subquery, probed by primary key. */
  materialUnitCost(shopId: Expression<string>, variantId: Expression<string>): Expression<string | null>;
  /** A material as a JSON object of MaterialInfo (null: unknown): a correlated subquery, probed by primary key. */
  materialJson(shopId: Expression<string>, variantId: Expression<string>): Expression<MaterialInfo | null>;
  /** Pre-assembled units of an item over every location, trimmed text ('0' without shelves): a correlated subquery. */
  shelfTotal(shopId: string | Expression<string>, itemId: Expression<string>): Expression<string>;
  /** Pre-assembled shelf rows of the items (finished-good variant ids or assembly ids); locations null = all. One statement. */
  shelves(scope: CatalogReadScope, itemIds: readonly string[], locationIds: readonly string[] | null): Promise<{ itemId: string; locationId: string; quantity: string }[]>;
  /** The rows of `shelves` as a select to embed in a statement of the caller's (quantity exact, as text). */
  shelvesSql(shopId: string, itemIds: readonly string[], locationIds: readonly string[] | null): Expression<{ item_id: string; location_id: string; quantity: string }>;
  /** The service's own levels of virtual materials (locations null = all), as a select to embed in a statement of the caller's (available exact, as text). */
  virtualLevelsSql(shopId: string, variantIds: readonly string[], locationIds: readonly string[] | null): Expression<{ variant_id: string; location_id: string; available: string }>;
}
