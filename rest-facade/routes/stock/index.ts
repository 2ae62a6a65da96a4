import type { FacadeRoute } from '../../define-route.ts';
import { getRawMaterialShelfAllocationRoute, getRawMaterialWorkOrderAllocationRoute } from './allocation.route.ts';
import { getAssemblyBillPreassembledRoute } from './assembly-bill.route.ts';
import { getRawMaterialInventoryRoute, patchRawMaterialInventoryRoute } from './inventory.route.ts';
import { getRawMaterialCommitmentsRoute, getRawMaterialPreassembledRoute, getRawMaterialResidualRoute } from './stock.route.ts';

/**
 * Stock per location: a material's levels (read and adjusted), its residual carry, pre-assembled
 * shelves (of a material's BOMs and of an assembly bill), commitments and allocations.
 */
export const stockRoutes: FacadeRoute[] = [
  getRawMaterialInventoryRoute,
  patchRawMaterialInventoryRoute,
  getRawMaterialResidualRoute,
  getRawMaterialPreassembledRoute,
  getAssemblyBillPreassembledRoute,
  getRawMaterialCommitmentsRoute,
  getRawMaterialShelfAllocationRoute,
  getRawMaterialWorkOrderAllocationRoute,
];
