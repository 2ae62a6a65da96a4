import { getMaterialPlanRoute, getWorkOrderRoute, listBuildRunsRoute, listWorkOrdersRoute } from './read.routes.ts';
import { patchWorkOrderRoute, startBuildRunRoute, transitionWorkOrderRoute } from './write.routes.ts';

export const workOrderRoutes = [
  listWorkOrdersRoute, getWorkOrderRoute, getMaterialPlanRoute, listBuildRunsRoute, patchWorkOrderRoute, transitionWorkOrderRoute, startBuildRunRoute,
];
