import { Type } from '@sinclair/typebox';
import { defineRoute, type GraphQLData } from '../../define-route.ts';
import { decimalVariable, LocationIdsQuery, NUMERIC_ID_PATTERN, scopeVariable, VariantIdParams } from '../materials/schemas.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../../src/kernel/limits.ts';
import { MIN0 } from '../../schema-helpers.ts';

export const getRawMaterialInventoryRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId/inventory',
  scope: 'read',
  operationId: 'getRawMaterialInventory',
  summary: 'Per-location stock of a material',
  description: `Platform-linked materials: a live read of the platform levels (each with \`locationName\`). Virtual materials:
the service's own levels (without \`locationName\`). \`totalAvailable\` sums the levels in scope (0 when the scope
matches nothing); \`cachedQuantity\` is the material row's inventoryQuantity (the cached platform total, or the sum of
every virtual level), not scoped. Levels are ordered by location id.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  dataOverrides: { levels: { title: 'InventoryLevel' }, 'levels.locationName': { optional: true } },
  operation: new URL('./inventory.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
  // Virtual levels have a null locationName, omitted by the optional property. A platform level
  // always has one in REST: the service gives null when the platform does not know the location,
  // and REST falls back to the id. Doing that fallback in the service would remove this step.
  toData: ({ rawMaterialInventory: v }) => v.origin !== 'platform' ? v : {
    ...v, levels: v.levels.map((l: GraphQLData) => ({ ...l, locationName: l.locationName ?? l.locationId })),
  },
});

const Row = Type.Object(
  {
    locationId: Type.String({ pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id, description: 'Bare numeric location id.' }),
    delta: Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], description: 'Relative change. Exactly one of delta or absolute.' })),
    absolute: Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], description: 'Target level (≥ 0), turned into a delta inside the transaction (retry-safe).' })),
    variantId: Type.Optional(Type.String({ maxLength: STRING_LIMITS.id, description: 'Optional; must equal the path id.' })),
  },
  { title: 'InventoryUpdate', description: 'One level change; unrecognised fields are ignored.' },
);

export const patchRawMaterialInventoryRoute = defineRoute({
  method: 'PATCH',
  url: '/raw-materials/:variantId/inventory',
  scope: 'write',
  operationId: 'adjustRawMaterialInventory',
  summary: 'Batch level changes of a virtual material',
  description: `Body \`{ updates: [{ locationId, delta | absolute, variantId? }] }\`, applied in order in one transaction (rows
on the same location compound). Virtual materials only (a platform-linked id is 400 before anything changes; an
unknown material 404).

Request-level 400 (nothing changes), naming each bad field as \`updates[i].<field>\`: a row with both or neither of
delta/absolute, a negative absolute, a variantId other than the path id, a number with more than 6 fractional
digits, a non-numeric locationId, an empty \`updates\`. Per-row failures (\`ok: false\`, \`error: { code, message }\`):
an unknown location (NOT_FOUND). When every row fails with the same error, the request fails with it (404).

Decreases clamp at zero unless the shop allows negative inventory; a truncated change is still \`ok: true\` with
\`truncated: true\`. A row that changes nothing is \`skipped\`. Every applied change is recorded in the adjustment
history (before, after, applied and requested delta, request id, API key). okCount + failedCount + skippedCount =
number of rows.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  body: Type.Object({ updates: Type.Array(Row, { minItems: 1, maxItems: LIST_LIMITS.inventoryUpdates }) }, { description: 'Unrecognised fields are ignored.' }),
  dataOverrides: {
    results: { title: 'InventoryUpdateResult' }, 'results.index': MIN0, 'results.skipped': { optional: true, const: true },
    ...Object.fromEntries(['id', 'previousAvailable', 'available', 'requestedDelta', 'appliedDelta', 'truncated', 'error'].map((f) => [`results.${f}`, { optional: true }])),
    okCount: MIN0, failedCount: MIN0, skippedCount: MIN0,
  },
  operation: new URL('./inventory-patch.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, body }) => {
    return {
      variantId: params.variantId,
      updates: body.updates.map((u, i) => ({
        locationId: u.locationId,
        delta: decimalVariable(u.delta, `updates[${i}].delta`),
        absolute: decimalVariable(u.absolute, `updates[${i}].absolute`),
        variantId: u.variantId ?? null,
      })),
    };
  },
  // Null ids, figures and errors are omitted by their optional properties. `skipped` and
  // `truncated` are non-null GraphQL booleans, but REST sends `skipped` only when true and
  // `truncated` only on ok rows, so their other values become null (omitted) here.
  toData: ({ adjustRawMaterialInventory: b }) => ({
    ...b,
    results: b.results.map((r: GraphQLData) => ({ ...r, skipped: r.skipped || null, truncated: r.ok ? r.truncated : null })),
  }),
});
