import type { FacadeRoute } from '../../define-route.ts';

/** Routes under /raw-materials and /assembly-bills (issue 3). */
export const materialRoutes: FacadeRoute[] = [];
