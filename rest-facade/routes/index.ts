import type { FacadeRoute } from '../define-route.ts';
import { listAssigneesRoute } from './assignees/route.ts';
import { listLocationsRoute } from './locations/route.ts';

/** Every implemented route of the facade. */
export const routes: FacadeRoute[] = [listLocationsRoute, listAssigneesRoute];
