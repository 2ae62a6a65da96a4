import type { FacadeRoute } from '../../define-route.ts';

/** Routes under /bills-of-materials and /bill-versions (issue 4). */
export const bomRoutes: FacadeRoute[] = [];
