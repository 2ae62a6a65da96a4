import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { EnumOf, graphqlEnumValues } from '../../graphql-enums.ts';
import {
  BuildRun, ConsumptionRow, Cost, headerProperties, obj, PlanContribution, PlanMaterial, Warning, WorkOrderIdParams,
} from './schemas.ts';
import { INT32_MAX, ListParameter, named, Num, NullableString, NUMERIC_ID_PATTERN } from '../../schema-helpers.ts';
import { LIST_LIMITS, PAGE_LIMITS, STRING_LIMITS } from '../../../src/limits.ts';

const at = (file: string) => new URL(file, import.meta.url);
const HEADER = at('./header.fragment.graphql');
const WARNING = at('./warning.fragment.graphql');
const RUN = at('./build-run.fragment.graphql');

const Facet = Type.Array(named('WorkOrderFacetValue', obj({
  value: NullableString('null: work orders with no location / no assignee.'), label: Type.String(), count: Type.Integer({ minimum: 1 }),
})));

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
- Cost: 3 SQL round trips whatever the page size or the number of work orders.`,
  tag: 'work-orders',
  querystring: Type.Object({
    q: Type.Optional(Type.String({ maxLength: STRING_LIMITS.search })),
    status: Type.Optional(ListParameter(EnumOf('WorkOrderStatus'), { maxItems: LIST_LIMITS.ids, description: 'Statuses: a work order matches any of them.' })),
    tags: Type.Optional(ListParameter(Type.String({ maxLength: STRING_LIMITS.tag }), { maxItems: LIST_LIMITS.tags, description: 'Tags: a work order matches any of them.' })),
    locationId: Type.Optional(Type.String({ pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id, description: 'A bare numeric location id (productionLocationId).' })),
    assignedTo: Type.Optional(Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'An assigneeId.' })),
    sourceType: Type.Optional(EnumOf('WorkOrderSourceType')),
    sortBy: Type.Optional(Type.String({ maxLength: STRING_LIMITS.sortKey, description: `${WORK_ORDER_SORTS.join(' | ')}; anything else is ignored.` })),
    sortDir: Type.Optional(EnumOf('WorkOrderSortDirection')),
    page: Type.Integer({ format: 'int32', minimum: 1, maximum: INT32_MAX, default: 1 }),
    pageSize: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_LIMITS.workOrders, default: 50 }),
  }, { additionalProperties: false }),
  data: obj({
    rows: Type.Array(named('WorkOrderListRow', obj(headerProperties))),
    total: Type.Integer({ minimum: 0 }),
    hasMore: Type.Boolean(),
    facets: obj({ status: Facet, location: Facet, assignee: Facet, tag: Facet }),
  }),
  operation: [at('./list.graphql'), HEADER],
  variables: ({ query }) => ({
    q: query.q ?? null, status: anyOf(query.status), tags: anyOf(query.tags), locationId: query.locationId ?? null,
    assignedTo: query.assignedTo ?? null, sourceType: query.sourceType ?? null,
    sortBy: WORK_ORDER_SORTS.includes(query.sortBy ?? '') ? query.sortBy : null,
    sortDir: query.sortDir ?? null, page: query.page, pageSize: query.pageSize,
  }),
});

const TransitionMove = named('AvailableTransition', obj({
  to: EnumOf('WorkOrderStatus'),
  direction: Type.Optional(EnumOf('TransitionDirection', { description: 'Present on the forward and back moves.' })),
}));

const consumptionRows = Type.Array(ConsumptionRow);

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
  data: named('WorkOrder', obj({
    ...headerProperties,
    items: Type.Array(obj({
      itemId: Type.String(), ownerType: EnumOf('BillOwnerType'), ownerId: Type.String(), name: NullableString(), quantity: Num(),
      completedQuantity: Num('Σ quantities of completed runs.'), builtQuantity: Num('Σ quantities of runs not reversed.'),
      remainingQuantity: Num('max(quantity − builtQuantity, 0).'),
    })),
    materials: Type.Array(PlanMaterial),
    contributions: Type.Array(PlanContribution),
    consumptionPlan: consumptionRows,
    itemConsumption: Type.Optional(Type.Array(obj({
      itemId: Type.String(), remainingQuantity: Num(), locationId: NullableString(), rows: consumptionRows,
    }), { description: 'Only with includeItemConsumption=true.' })),
    cost: Cost,
    buildRuns: Type.Array(BuildRun),
    qcReviews: Type.Array(obj({
      reviewId: Type.String(), buildRunId: NullableString(), decision: EnumOf('QcDecision', { description: 'rejected when any unit failed, else approved.' }),
      items: Type.Array(obj({ itemId: Type.String(), approvedQuantity: Num(), failedQuantity: Num() }), {
        description: 'Per item of the run: units approved and units failed. For each item, approved + failed over the run\'s reviews ≤ what it built.',
      }),
      note: NullableString(),
      reviewerName: NullableString(), createdAt: Type.String({ format: 'date-time' }),
    })),
    reworkItems: Type.Array(obj({
      reworkItemId: Type.String(), description: Type.String(), quantity: Num(), status: EnumOf('ReworkItemStatus'),
      buildRunId: NullableString(), createdAt: Type.String({ format: 'date-time' }),
      resolvedAt: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }),
    })),
    documents: Type.Array(obj({ documentId: Type.String(), name: Type.String(), url: Type.String(), createdAt: Type.String({ format: 'date-time' }) })),
    conversation: Type.Array(obj({ messageId: Type.String(), authorName: NullableString(), body: Type.String(), createdAt: Type.String({ format: 'date-time' }) })),
    lifecycleEvents: Type.Array(obj({
      eventId: Type.String(), fromStatus: EnumOf('WorkOrderStatus', { nullable: true }), toStatus: EnumOf('WorkOrderStatus'), note: NullableString(), actorUserId: NullableString(),
      actorDisplayName: NullableString(), createdAt: Type.String({ format: 'date-time' }),
    })),
    availableTransitions: Type.Array(TransitionMove),
    warnings: Type.Array(Warning),
  })),
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
  data: obj({
    workOrderId: Type.String(), materials: Type.Array(PlanMaterial), contributions: Type.Array(PlanContribution),
    consumptionPlan: consumptionRows, cost: Cost,
  }),
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
  data: obj({ workOrderId: Type.String(), buildRuns: Type.Array(BuildRun) }),
  operation: [at('./build-runs.graphql'), RUN, WARNING],
  extraProblems: [404],
  variables: ({ params }) => ({ id: params.id }),
});
