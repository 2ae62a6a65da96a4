import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { BomIdParams } from './schemas.ts';

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
  extraProblems: [404],
  dataOverrides: { 'locations.rules.lineChanges': { title: 'LocationRuleLineChange' } },
  operation: new URL('./location-rules.graphql', import.meta.url),
  variables: ({ params }) => ({ bomId: params.id }),
});
