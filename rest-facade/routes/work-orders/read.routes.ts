import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { EnumOf, graphqlEnumValues, graphqlFieldNames, withArgDefaults } from '../../graphql-enums.ts';
import { BUILD_RUN_OVERRIDES, HEADER_OVERRIDES, PLAN_OVERRIDES, under, WARNING_OVERRIDES, WorkOrderIdParams } from './schemas.ts';
import { INT32_MAX, ListParameter, MIN0, MIN1, NUMERIC_ID_PATTERN } from '../../schema-helpers.ts';
import { LIST_LIMITS, PAGE_LIMITS, STRING_LIMITS } from '../../../src/kernel/limits.ts';

const at = (file: string) => new URL(file, import.meta.url);
const HEADER = at('./header.fragment.graphql');
const WARNING = at('./warning.fragment.graphql');
const RUN = at('./build-run.fragment.graphql');

/** The sorts of the list (an unknown sortBy is ignored, not refused: REST takes it as text). */
const WORK_ORDER_SORTS = graphqlEnumValues('WorkOrderSort');

/** A list filter as a GraphQL variable: no values, no filter. */
const anyOf = (values: readonly string[] | undefined) => (values?.length ? [...values] : null);

export const listWorkOrdersRoute = defineRoute({
  method: 'GET',
  url: '/work-orders',
  scope: 'read',
  operationId: 'listWorkOrders',
  summary: 'List work orders with facets',
  description: `Flat header rows (never items, materials or runs), \`total\`, \`hasMore\` (page × pageSize < total) and \`facets\`
(status, location, assignee, tag: \`{ value, label, count }\` over the filtered, unpaged result; labels are the status word,
the location's name, the assignee's display name and the tag; work orders with no location or assignee count under
\`value: null\`).
- \`q\`: case-insensitive substring of the name, the short id or the assignee's display name. \`status\`, \`tags\`:
  any of (OR), repeated or comma-separated (\`status=draft,ready\` = \`status=draft&status=ready\`). \`locationId\`: productionLocationId. \`assignedTo\`: an assigneeId. \`sourceType\`.
- \`sortBy\`: updatedAt (default) | createdAt | dueDate | priority | name | status; an unknown value is ignored. \`sortDir\`:
  asc | desc, by default desc for updatedAt, createdAt and priority (urgent first) and asc for the rest; dueDate puts work
  orders without one last; status follows the state table (draft … cancelled). Ties break on workOrderId ascending.
- \`page\` ≥ 1, \`pageSize\` 1–${PAGE_LIMITS.workOrders} (default 50); a page past the end is 200 with no rows.
- Cost: 3 SQL round trips whatever the page size or the number of work orders. Without a filter the facets and total are
  the shop's stored counts (kept on every write); with one they are counted over the matching work orders.`,
  tag: 'work-orders',
  querystring: withArgDefaults('workOrders', Type.Object({
    q: Type.Optional(Type.String({ maxLength: STRING_LIMITS.search })),
    status: Type.Optional(ListParameter(EnumOf('WorkOrderStatus'), { maxItems: LIST_LIMITS.ids, description: 'Statuses: a work order matches any of them.' })),
    tags: Type.Optional(ListParameter(Type.String({ maxLength: STRING_LIMITS.tag }), { maxItems: LIST_LIMITS.tags, description: 'Tags: a work order matches any of them.' })),
    locationId: Type.Optional(Type.String({ pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id, description: 'A bare numeric location id (productionLocationId).' })),
    assignedTo: Type.Optional(Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'An assigneeId.' })),
    sourceType: Type.Optional(EnumOf('WorkOrderSourceType')),
    sortBy: Type.Optional(Type.String({ maxLength: STRING_LIMITS.sortKey, description: `${WORK_ORDER_SORTS.join(' | ')}; anything else is ignored.` })),
    sortDir: Type.Optional(EnumOf('WorkOrderSortDirection')),
    page: Type.Integer({ format: 'int32', minimum: 1, maximum: INT32_MAX }),
    pageSize: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_LIMITS.workOrders }),
  }, { additionalProperties: false })),
  dataOverrides: {
    rows: { title: 'WorkOrderListRow' }, ...under('rows', HEADER_OVERRIDES), total: MIN0,
    ...Object.fromEntries(graphqlFieldNames('WorkOrderFacets').flatMap((f) => [[`facets.${f}`, { title: 'WorkOrderFacetValue' }], [`facets.${f}.count`, MIN1]])),
  },
  operation: [at('./list.graphql'), HEADER],
  variables: ({ query }) => ({
    q: query.q ?? null, status: anyOf(query.status), tags: anyOf(query.tags), locationId: query.locationId ?? null,
    assignedTo: query.assignedTo ?? null, sourceType: query.sourceType ?? null,
    sortBy: WORK_ORDER_SORTS.includes(query.sortBy ?? '') ? query.sortBy : null,
    sortDir: query.sortDir ?? null, page: query.page, pageSize: query.pageSize,
  }),
});

export const getWorkOrderRoute = defineRoute({
  method: 'GET',
  url: '/work-orders/:id',
  scope: 'read',
  operationId: 'getWorkOrder',
  summary: 'Read a whole work order',
  description: `Header fields at the top of \`data\`, beside the parts: \`items\`, \`materials\` (required, picked, remaining per
material and consumption location), \`contributions\` (which item's recipe or manual line each quantity came from),
\`consumptionPlan\` (what a run of the remaining item quantities would take now: pre-assembled shelves first, then material
levels, with what would be short), \`cost\`, \`buildRuns\`, \`qcReviews\`, \`reworkItems\`, \`documents\`, \`conversation\`,
\`lifecycleEvents\`, \`availableTransitions\` (exactly the moves that would succeed now) and \`warnings\` (recomputed on every
read, never stored; each with its remedy). \`includeItemConsumption=true\` adds \`itemConsumption\`, a consumption plan per item.
Another shop's id is 404.`,
  tag: 'work-orders',
  params: WorkOrderIdParams,
  querystring: Type.Object(
    { includeItemConsumption: Type.Boolean({ default: false, description: '`true` adds per-item consumption plans.' }) },
    { additionalProperties: false },
  ),
  dataOverrides: {
    '': { title: 'WorkOrder' }, ...HEADER_OVERRIDES, ...PLAN_OVERRIDES, 'itemConsumption.rows': { title: 'ConsumptionPlanRow' },
    ...under('buildRuns', BUILD_RUN_OVERRIDES),
    availableTransitions: { title: 'AvailableTransition' }, 'availableTransitions.direction': { optional: true },
    ...under('warnings', WARNING_OVERRIDES),
  },
  operation: [at('./get.graphql'), HEADER, RUN, WARNING],
  extraProblems: [404],
  variables: ({ params, query }) => ({ id: params.id, includeItemConsumption: query.includeItemConsumption }),
});

export const getMaterialPlanRoute = defineRoute({
  method: 'GET',
  url: '/work-orders/:id/material-plan',
  scope: 'read',
  operationId: 'getWorkOrderMaterialPlan',
  summary: 'Material plan of a work order',
  description: `\`materials\`: per material and consumption location, \`required\` (every item's recipe expanded to leaf raw
materials at its consumption location — waste and that location's rules included — plus manual materials), \`picked\` (Σ picks
of runs not reversed) and \`remaining\` = max(required − picked, 0): the same figures as the material's work-order allocation.
A line's location is its own, else the work order's defaultConsumptionLocationId, else its productionLocationId, else none.
\`contributions\`: where each required quantity came from. \`consumptionPlan\`: what a run of the remaining item quantities
would take now, by the build-run rules (pre-assembled shelves first). \`cost\`: material cost of required and picked
quantities, labour, totals.`,
  tag: 'work-orders',
  params: WorkOrderIdParams,
  dataOverrides: PLAN_OVERRIDES,
  operation: at('./material-plan.graphql'),
  extraProblems: [404],
  variables: ({ params }) => ({ id: params.id }),
});

export const listBuildRunsRoute = defineRoute({
  method: 'GET',
  url: '/work-orders/:id/build-runs',
  scope: 'read',
  operationId: 'listWorkOrderBuildRuns',
  summary: 'Build-run history of a work order',
  description: 'Every build run of the work order, oldest first, with its items, picks (what it took from which shelf or level) and start warnings.',
  tag: 'work-orders',
  params: WorkOrderIdParams,
  dataOverrides: under('buildRuns', BUILD_RUN_OVERRIDES),
  operation: [at('./build-runs.graphql'), RUN, WARNING],
  extraProblems: [404],
  variables: ({ params }) => ({ id: params.id }),
});
