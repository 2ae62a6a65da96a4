import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { EnumOf } from '../../graphql-enums.ts';
import { BomIdParams, NullableNumber, NullableString, Num, obj } from './schemas.ts';
import { named } from '../../schema-helpers.ts';

const LineChange = named('LocationRuleLineChange', obj({
  change: EnumOf('LocationRuleAction'),
  lineType: EnumOf('StockedLineType'),
  nodeId: Type.String({ description: 'The line as used at the location: the replacement for replace, the removed node for remove.' }),
  replacesNodeId: NullableString('replace only: the base line it swaps out.'),
  quantity: NullableNumber('Quantity at the location (null for remove).'),
  wastePercentage: NullableNumber('Waste % at the location (null for remove).'),
  baseQuantity: NullableNumber('Quantity of the base line (null for add).'),
  baseWastePercentage: NullableNumber('Waste % of the base line (null for add).'),
}));

const description = `What the BOM does at every location of the shop (ordered by name, then id):
- \`rules\`: the location rules that apply there — the BOM's own and those of every assembly bill its tree reaches at that
  location (root first, then depth-first) — each with \`lineChanges\` against the bill's base recipe.
- \`materialChanges\`: leaf materials whose need per finished unit (waste and nesting included, non-essential materials too)
  differs from the base recipe's: \`baseQuantityPerUnit\` and \`quantityPerUnit\` (0 where the material is not used).
- \`usesBaseRecipe\`: true when no rule changes any line there.
Cost: 3 SQL round trips (recipe forest, materials, locations). 404 NOT_FOUND for an unknown BOM.`;

export const bomLocationRulesRoute = defineRoute({
  method: 'GET',
  url: '/bills-of-materials/:id/location-rules',
  scope: 'read',
  operationId: 'getBillOfMaterialsLocationRules',
  summary: 'Per-location rules of a BOM',
  description,
  tag: 'bills-of-materials',
  params: BomIdParams,
  querystring: Type.Object({}, { additionalProperties: false }),
  data: obj({
    bomId: Type.String(),
    locations: Type.Array(obj({
      locationId: Type.String(), locationName: Type.String(), usesBaseRecipe: Type.Boolean(),
      rules: Type.Array(obj({
        ownerType: EnumOf('BillOwnerType'), ownerId: Type.String(), name: Type.String(),
        lineChanges: Type.Array(LineChange),
      })),
      materialChanges: Type.Array(obj({ variantId: Type.String(), name: NullableString(), baseQuantityPerUnit: Num(), quantityPerUnit: Num() })),
    })),
  }),
  extraProblems: [404],
  operation: new URL('./location-rules.graphql', import.meta.url),
  variables: ({ params }) => ({ bomId: params.id }),
});
