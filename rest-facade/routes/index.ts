import type { FacadeRoute } from '../define-route.ts';
import { listAssigneesRoute } from './assignees/route.ts';
import { bomRoutes } from './bills-of-materials/index.ts';
import { listLocationsRoute } from './locations/route.ts';
import { materialRoutes } from './raw-materials/index.ts';
import { orderBreakdownBatchRoute, orderBreakdownRoute } from './order-bom-breakdown/route.ts';
import { workOrderRoutes } from './work-orders/index.ts';

/** Every implemented route of the facade. */
export const routes: FacadeRoute[] = [listLocationsRoute, listAssigneesRoute, ...materialRoutes, ...bomRoutes, orderBreakdownRoute, orderBreakdownBatchRoute, ...workOrderRoutes];
