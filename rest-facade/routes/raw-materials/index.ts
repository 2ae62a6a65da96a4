import type { FacadeRoute } from '../../define-route.ts';
import { getAssemblyBillPreassembledRoute } from '../assembly-bills/route.ts';
import { getRawMaterialShelfAllocationRoute, getRawMaterialWorkOrderAllocationRoute } from './allocation.route.ts';
import { getRawMaterialInventoryRoute, patchRawMaterialInventoryRoute } from './inventory.route.ts';
import { listRawMaterialsRoute } from './list.route.ts';
import { getRawMaterialRoute, patchRawMaterialRoute } from './material.route.ts';
import { getRawMaterialCommitmentsRoute, getRawMaterialPreassembledRoute, getRawMaterialResidualRoute } from './stock.route.ts';

/** Routes under /raw-materials and /assembly-bills (issue 3). */
export const materialRoutes: FacadeRoute[] = [
  listRawMaterialsRoute,
  getRawMaterialRoute,
  patchRawMaterialRoute,
  getRawMaterialInventoryRoute,
  patchRawMaterialInventoryRoute,
  getRawMaterialResidualRoute,
  getRawMaterialPreassembledRoute,
  getAssemblyBillPreassembledRoute,
  getRawMaterialCommitmentsRoute,
  getRawMaterialShelfAllocationRoute,
  getRawMaterialWorkOrderAllocationRoute,
];
