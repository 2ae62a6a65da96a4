import { defineRoute } from '../../define-route.ts';
import { LocationIdsQuery, scopeVariable, VariantIdParams } from '../materials/schemas.ts';
import { MIN0 } from '../../schema-helpers.ts';
import type { DataOverrides } from '../../data-overrides.ts';

export const getRawMaterialResidualRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId/residual',
  scope: 'read',
  operationId: 'getRawMaterialResidual',
  summary: 'Fractional residuals of a material per location',
  description: `Fractional remainders carried from recipe consumption (0 ≤ value < 1), per location, in two kinds side by
side: \`buildRun\` (work orders and order execution) and \`safetyStock\` (reservations). Residuals are bookkeeping and are
never part of an availability number. \`totals\` sums the levels in scope; an item with no residuals has empty levels
and zero totals. A material or finished-good variant id; anything else is 404.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  dataOverrides: { '': { nullAs: 'anyOf' } },
  operation: new URL('./residual.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});

/** Shared with GET /assembly-bills/{id}/preassembled: one component. */
export const PREASSEMBLED_OVERRIDES: DataOverrides = { '': { title: 'PreassembledStock', nullAs: 'anyOf' } };

export const getRawMaterialPreassembledRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId/preassembled',
  scope: 'read',
  operationId: 'getRawMaterialPreassembled',
  summary: 'Pre-assembled stock of a variant per location',
  description: `Countable stock of finished units already built, per location. A finished good is stocked under the platform
variant id it sells as (an order consumes this shelf before any component). Same shape as
GET /assembly-bills/{id}/preassembled. Unknown ids (neither a material nor a BOM's finished good) are 404.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  dataOverrides: PREASSEMBLED_OVERRIDES,
  operation: new URL('./preassembled.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});

export const getRawMaterialCommitmentsRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId/commitments',
  scope: 'read',
  operationId: 'getRawMaterialCommitments',
  summary: 'Commitments on a material per location',
  description: `Per location: \`orders\` = open quantity of order reservations (quantity − fulfilledQuantity, never below 0) and
\`safetyStock\` = held by active safety-stock reservations. \`holders\` names who holds the units — orders
(\`holderType: "order"\`, \`holderId\` = order id, \`name\` = order name) and the bill behind each safety-stock hold
(\`holderType: "bom" | "sub_assembly"\`) — grouped per holder, the 20 largest by quantity (ties by type then id), with
\`otherHoldersCount\` / \`otherHoldersQuantity\` for the rest. Order reservations whose line has no fulfilment
location yet are in \`totals.unlocated\` (zero when \`locationIds\` restricts the scope), not in a level. Sums are never capped. Commitments are not availability
and must not be subtracted from it. An untouched item has empty levels and zero totals.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  dataOverrides: { '': { nullAs: 'anyOf' }, 'levels.otherHoldersCount': MIN0 },
  operation: new URL('./commitments.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});
