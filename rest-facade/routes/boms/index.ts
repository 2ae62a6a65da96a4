import type { FacadeRoute } from '../../define-route.ts';
import { billVersionsRoute } from './bill-versions.route.ts';
import { bomBuildableRoute } from './buildable.route.ts';
import { getBomRoute } from './get.route.ts';
import { listBomsRoute } from './list.route.ts';
import { bomLocationRulesRoute } from './location-rules.route.ts';

/** Routes under /bills-of-materials and /bill-versions (issue 4). */
export const bomRoutes: FacadeRoute[] = [listBomsRoute, getBomRoute, bomBuildableRoute, bomLocationRulesRoute, billVersionsRoute];
