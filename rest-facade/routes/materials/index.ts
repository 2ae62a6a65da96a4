import type { FacadeRoute } from '../../define-route.ts';
import { listRawMaterialsRoute } from './list.route.ts';
import { getRawMaterialRoute, patchRawMaterialRoute } from './material.route.ts';

/** The raw materials themselves: /raw-materials and /raw-materials/{variantId} (their stock: ../stock). */
export const materialRoutes: FacadeRoute[] = [listRawMaterialsRoute, getRawMaterialRoute, patchRawMaterialRoute];
