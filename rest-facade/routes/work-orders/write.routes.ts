import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { EnumOf } from '../../graphql-enums.ts';
// The state table as the schema describes WorkOrderStatus, generated from the work-order vocabulary.
import { WORK_ORDER_STATE_TABLE } from '../../../schema/types/work-orders/enums.ts';
import { decimalVariable, NUMERIC_ID_PATTERN } from '../../schema-helpers.ts';
import { BUILD_RUN_OVERRIDES, ExpectedUpdatedAt, obj, WorkOrderIdParams } from './schemas.ts';
import { LIST_LIMITS, STRING_LIMITS, type StringKind } from '../../../src/kernel/limits.ts';

const at = (file: string) => new URL(file, import.meta.url);
const nullable = (schema: Record<string, unknown>, description?: string) =>
  Type.Unsafe<unknown>({ ...schema, type: [schema.type as string, 'null'], ...(description ? { description } : {}) });
const Text = (kind: StringKind, description?: string) => nullable({ type: 'string', maxLength: STRING_LIMITS[kind] }, description);
const Reference = (description: string) => nullable({ type: 'string', minLength: 1, maxLength: STRING_LIMITS.id }, description);
const LocationRef = (description: string) => nullable({ type: 'string', pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id }, `${description} A bare numeric location id.`);
const Money = (description: string) => nullable({ type: 'number', minimum: 0 }, `${description} ≥ 0, at most 6 fractional digits.`);
const Actor = {
  note: Type.Optional(Type.String({ maxLength: STRING_LIMITS.text })),
  actorUserId: Type.Optional(Type.String({ maxLength: STRING_LIMITS.id })),
  actorDisplayName: Type.Optional(Type.String({ maxLength: STRING_LIMITS.person })),
};

/** Every editable header field, declared once: the body schema, the OpenAPI document and the variables read it. */
const headerFields = {
  name: Type.String({ minLength: 1, maxLength: STRING_LIMITS.name, description: 'Cannot be cleared.' }),
  description: Text('text'),
  notes: Text('text'),
  priority: Type.Unsafe<string>({ ...EnumOf('WorkOrderPriority'), description: 'Cannot be cleared.' }),
  dueDate: nullable({ type: 'string', format: 'date', maxLength: STRING_LIMITS.date }, 'Calendar date YYYY-MM-DD.'),
  assigneeId: Reference('An assigneeId from GET /assignees: unknown is 404; retired is 400 unless this work order already names them.'),
  productionLocationId: LocationRef('Unknown is 404.'),
  defaultConsumptionLocationId: LocationRef('Where item lines are consumed (else the production location). Unknown is 404.'),
  sourceFlowId: Reference('Unknown is 404.'),
  sourceTodoId: Reference('A task id; unknown is 404.'),
  sourceOrderIds: nullable({ type: 'array', maxItems: LIST_LIMITS.ids, items: { type: 'string', minLength: 1, maxLength: STRING_LIMITS.id } }, 'Platform order ids; any unknown is 404. null clears to [].'),
  tags: nullable({ type: 'array', maxItems: LIST_LIMITS.tags, items: { type: 'string', minLength: 1, maxLength: STRING_LIMITS.tag } }, 'null clears to [].'),
  plannedLaborCost: Money('Planned labour cost.'),
  actualLaborCost: Money('Actual labour cost.'),
};
const HeaderBody = Type.Object(
  { expectedUpdatedAt: ExpectedUpdatedAt, ...Object.fromEntries(Object.entries(headerFields).map(([k, v]) => [k, Type.Optional(v)])) },
  { description: 'Send only the fields to change; `null` clears a field; unrecognised fields are ignored.' },
);
const MONEY_FIELDS = new Set(['plannedLaborCost', 'actualLaborCost']);

export const patchWorkOrderRoute = defineRoute({
  method: 'PATCH',
  url: '/work-orders/:id',
  scope: 'write',
  operationId: 'updateWorkOrder',
  summary: 'Edit work-order header fields',
  description: `Body: \`expectedUpdatedAt\` (required) and any editable header field; an absent field is unchanged, \`null\`
clears it (name and priority cannot be cleared: 400); unrecognised fields are ignored. Every reference is checked before
anything is written: a missing location, flow, task, order or assignee is 404 naming each one in \`missing\`; a retired
assignee is 400 when newly assigned (one the work order already names may be re-sent). A stale \`expectedUpdatedAt\` is 409 and nothing is written. The response is the new change token (a body
that changes nothing returns the current one).`,
  tag: 'work-orders',
  params: WorkOrderIdParams,
  body: HeaderBody,
  operation: at('./patch.graphql'),
  extraProblems: [404, 409],
  variables: ({ params, body }) => {
    const sent = body as Record<string, unknown>;
    const input: Record<string, unknown> = { expectedUpdatedAt: sent.expectedUpdatedAt };
    for (const field of Object.keys(headerFields)) {
      if (!(field in sent)) continue;
      input[field] = MONEY_FIELDS.has(field) ? decimalVariable(sent[field], field) : sent[field];
    }
    return { id: params.id, input };
  },
});

const TransitionBody = Type.Object({
  expectedUpdatedAt: ExpectedUpdatedAt,
  to: Type.Optional(EnumOf('WorkOrderStatus', { description: 'The target status. Exactly one of to or direction.' })),
  direction: Type.Optional(EnumOf('TransitionDirection', { description: 'forward | back: the target follows from the current status.' })),
  ...Actor,
}, { description: 'Unrecognised fields are ignored.' });

export const transitionWorkOrderRoute = defineRoute({
  method: 'PATCH',
  url: '/work-orders/:id/transition',
  scope: 'write',
  operationId: 'transitionWorkOrder',
  summary: 'Move a work order to another status',
  description: `Exactly one of \`to\` or \`direction\` (both or neither: 400). The state table:
${WORK_ORDER_STATE_TABLE}

A refused move is 409 with \`blockers\`: NOT_ALLOWED (not in the table), NO_ITEMS (leaving draft towards production with
no items; cancelling an empty draft is allowed), NO_PRODUCTION_LOCATION (to in_progress without one), NO_BUILD_RUN (to
quality_control without a run that was not reversed), OPEN_REWORK (to completed with open rework items), RUN_IN_PROGRESS (to
cancelled or paused while a run is started and not completed). Each move writes a lifecycle event (note, actor, from, to,
time) whose id is returned. A stale \`expectedUpdatedAt\` is 409.`,
  tag: 'work-orders',
  params: WorkOrderIdParams,
  body: TransitionBody,
  operation: at('./transition.graphql'),
  extraProblems: [404, 409],
  variables: ({ params, body }) => ({
    id: params.id, expectedUpdatedAt: body.expectedUpdatedAt, to: body.to ?? null, direction: body.direction ?? null,
    note: body.note ?? null, actorUserId: body.actorUserId ?? null, actorDisplayName: body.actorDisplayName ?? null,
  }),
});

const RunBody = Type.Object({
  expectedUpdatedAt: ExpectedUpdatedAt,
  buildRunId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$', maxLength: 128, description: 'The idempotency key (1–128 characters [A-Za-z0-9._:-]).' }),
  items: Type.Array(obj({
    itemId: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'An item of this work order (unknown: 404 naming it).' }),
    quantity: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1e14, description: 'Greater than 0 and less than 10^14, at most 6 fractional digits.' }),
  }), { minItems: 1, maxItems: LIST_LIMITS.items }),
  mode: Type.Optional(EnumOf('BuildRunMode', { description: 'start (the default and only value in v1).' })),
  runType: Type.Optional(EnumOf('BuildRunType', { description: 'production (default) | rework.' })),
  reworkItemIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: STRING_LIMITS.id }), { maxItems: LIST_LIMITS.ids, description: 'A rework run names the rework items it addresses.' })),
  ...Actor,
}, { description: 'Unrecognised fields are ignored.' });

export const startBuildRunRoute = defineRoute({
  method: 'PATCH',
  url: '/work-orders/:id/build-runs',
  scope: 'write',
  operationId: 'startBuildRun',
  summary: 'Start a build run (moves stock)',
  description: `Starts a run and consumes stock at once, in one transaction, at the work order's consumption location
(defaultConsumptionLocationId, else productionLocationId): each item's recipe with that location's rules, pushed down the
tree; an assembly bill takes its pre-assembled shelf there first and only the rest comes from its components (a bill flagged
onlyConsumePreassembled never does: PREASSEMBLED_SHORT warning); every raw material, non-essential ones too, goes through the
residual carry (three 0.4 builds deduct 0, 0, 1 and carry 0.2). A deduction below zero clamps at zero unless the shop allows
negative inventory; either way the response warns NEGATIVE_INVENTORY naming material, location and shortfall. Platform-linked
deductions are queued in the outbox in the same transaction and pushed to the platform afterwards, each exactly once; reads
of live levels include them at once. Every deduction is in the adjustment history, naming the run.
Runs start only in in_progress, quality_control (runType rework) and qc_approved (409 NOT_BUILDABLE_STATE elsewhere).
\`buildRunId\` is an idempotency key: re-sending a run that exists returns it as stored (200, nothing moves) whatever
\`expectedUpdatedAt\` says; the same id with other items is 409. Otherwise a stale \`expectedUpdatedAt\` is 409.
The response is the run: \`updatedAt\` is the run's, \`workOrderUpdatedAt\` the work order's new token.
An enhanced-plan operation (\`x-plan: enhanced\`): on a shop of the standard plan it is 403 PLAN_REQUIRED, whose \`plan\`
names the plan needed and the shop's plan, and nothing moves.`,
  tag: 'work-orders',
  plan: 'enhanced',
  params: WorkOrderIdParams,
  body: RunBody,
  dataOverrides: BUILD_RUN_OVERRIDES,
  operation: [at('./start-build-run.graphql'), at('./build-run.fragment.graphql'), at('./warning.fragment.graphql')],
  extraProblems: [404, 409],
  variables: ({ params, body }) => ({
    id: params.id, expectedUpdatedAt: body.expectedUpdatedAt, buildRunId: body.buildRunId,
    items: body.items.map((item, i) => ({ itemId: item.itemId, quantity: decimalVariable(item.quantity, `items[${i}].quantity`) })),
    mode: body.mode ?? 'start', runType: body.runType ?? 'production', reworkItemIds: body.reworkItemIds ?? [],
    note: body.note ?? null, actorUserId: body.actorUserId ?? null, actorDisplayName: body.actorDisplayName ?? null,
  }),
});

