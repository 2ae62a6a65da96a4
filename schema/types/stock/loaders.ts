import DataLoader from 'dataloader';
import type { InventoryView } from '../../../src/modules/materials/inventory.service.ts';
import { materialInventories } from '../../../src/modules/materials/material-batch.service.ts';
import type { MaterialView } from '../../../src/modules/materials/material-view.ts';
import { normaliseScope } from '../../../src/modules/locations/location-scope.ts';
import { perArguments, type LoaderFactory } from '../common/loader-part.ts';
import type { LocationLoaders } from '../locations/loaders.ts';

export interface StockLoaders {
  /** Per-location stock of materials within a location scope (null or empty = every location). */
  inventory(locationIds: readonly string[] | null | undefined): DataLoader<MaterialView, InventoryView, string>;
}

export const stockLoaders: LoaderFactory<StockLoaders, LocationLoaders> = (ctx, all) => {
  const inventories = perArguments(
    (scope: string[] | null) => new DataLoader<MaterialView, InventoryView, string>(async (materials) => {
      const found = await materialInventories(ctx, materials, scope, () => all().locationNames());
      return materials.map((m) => found.get(m.variantId)!);
    }, { cacheKeyFn: (m) => m.variantId }),
    (scope) => (scope ? [...scope].sort().join(',') : '*'),
  );
  return {
    loaders: { inventory: (locationIds) => inventories.get(normaliseScope(locationIds)) },
    clear: () => inventories.clear(),
  };
};
