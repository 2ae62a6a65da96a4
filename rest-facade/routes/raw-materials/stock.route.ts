import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { EnumOf } from '../../graphql-enums.ts';
import { LocationIdsQuery, scopeVariable, VariantIdParams } from './schemas.ts';
import { named } from '../../schema-helpers.ts';

const strict = (properties: Parameters<typeof Type.Object>[0], description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
const LocationName = Type.Union([Type.String(), Type.Null()], { description: 'Null when the platform does not know the location.' });

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
  data: strict({
    variantId: Type.String(),
    levels: Type.Array(strict({ locationId: Type.String(), locationName: LocationName, buildRun: Type.Number(), safetyStock: Type.Number() })),
    totals: strict({ buildRun: Type.Number(), safetyStock: Type.Number() }),
  }),
  operation: new URL('./residual.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});

export const PreassembledData = named('PreassembledStock', strict({
  itemId: Type.String({ description: 'The variant id (finished good) or assembly id the shelf stock is kept under.' }),
  itemType: EnumOf('StockItemType'),
  levels: Type.Array(strict({ locationId: Type.String(), locationName: LocationName, quantity: Type.Number({ description: 'Pre-assembled units on the shelf.' }) })),
  totals: strict({ quantity: Type.Number() }),
}));

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
  data: PreassembledData,
  operation: new URL('./preassembled.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});

/** A holder entry shared by commitments, shelf allocation and work-order allocation. */
export const holderFields = {
  holderId: Type.String(),
  name: Type.String(),
  quantity: Type.Number({ description: 'What this holder contributes to the level (the list is ranked by it).' }),
};
export const otherHolderFields = {
  otherHoldersCount: Type.Integer({ minimum: 0, description: 'Holders beyond the 20 largest of this location.' }),
  otherHoldersQuantity: Type.Number({ description: 'Their combined quantity (the level\'s sums always include them).' }),
};

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
\`otherHoldersCount\` / \`otherHoldersQuantity\` for the rest. Sums are never capped. Commitments are not availability
and must not be subtracted from it. An untouched item has empty levels and zero totals.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  data: strict({
    variantId: Type.String(),
    levels: Type.Array(strict({
      locationId: Type.String(),
      locationName: LocationName,
      orders: Type.Number({ description: 'Open quantity of order reservations.' }),
      safetyStock: Type.Number({ description: 'Held by active safety-stock reservations.' }),
      holders: Type.Array(strict({
        holderType: EnumOf('StockCommitmentHolderType'),
        ...holderFields,
      })),
      ...otherHolderFields,
    })),
    totals: strict({ orders: Type.Number(), safetyStock: Type.Number() }),
  }),
  operation: new URL('./commitments.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});
