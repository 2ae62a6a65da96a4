import DataLoader from 'dataloader';
import { materialsByIds } from '../../../src/modules/materials/material-batch.service.ts';
import { materialConnectionsOf, type MaterialConnections } from '../../../src/modules/materials/material-connections.service.ts';
import type { MaterialView } from '../../../src/modules/materials/material-view.ts';
import { inKeyOrder, type LoaderFactory } from '../common/loader-part.ts';

export interface MaterialLoaders {
  /** Raw materials (platform-linked or virtual) by variantId. */
  material: DataLoader<string, MaterialView | null>;
  /** The uses of materials by bills (recipe lines and location-rule overrides), by variantId. */
  materialUsages: DataLoader<string, MaterialConnections>;
}

export const materialLoaders: LoaderFactory<MaterialLoaders> = (ctx) => {
  const material = new DataLoader<string, MaterialView | null>(async (ids) => inKeyOrder(ids, await materialsByIds(ctx, ids)));
  const materialUsages = new DataLoader<string, MaterialConnections>((ids) => materialConnectionsOf(ctx, ids));
  return {
    loaders: { material, materialUsages },
    clear: () => {
      material.clearAll();
      materialUsages.clearAll();
    },
  };
};
