import type { FacadeRoute } from '../define-route.ts';
import { bomRoutes } from './boms/index.ts';
import { listLocationsRoute } from './locations/route.ts';
import { materialRoutes } from './materials/index.ts';
import { orderBreakdownBatchRoute, orderBreakdownRoute } from './orders/route.ts';
import { listAssigneesRoute } from './people/route.ts';
import { stockRoutes } from './stock/index.ts';
import { workOrderRoutes } from './work-orders/index.ts';

// One folder a feature (docs/architecture.md, "Where a route lives"). The order is the OpenAPI
// document's order of paths.

/** Every implemented route of the facade. */
export const routes: FacadeRoute[] = [
  listLocationsRoute, listAssigneesRoute, ...materialRoutes, ...stockRoutes, ...bomRoutes, orderBreakdownRoute, orderBreakdownBatchRoute, ...workOrderRoutes,
];
