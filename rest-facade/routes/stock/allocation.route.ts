import { defineRoute } from '../../define-route.ts';
import { LocationIdsQuery, scopeVariable, VariantIdParams } from '../materials/schemas.ts';
import { MIN0 } from '../../schema-helpers.ts';

export const getRawMaterialShelfAllocationRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId/shelf-allocation',
  scope: 'read',
  operationId: 'getRawMaterialShelfAllocation',
  summary: 'Material embedded in pre-assembled shelf stock',
  description: `Units of the material embedded in AVAILABLE pre-assembled shelf stock, per location, for every parent that
consumes it at any depth (BOM finished goods, stocked under their variant id, and assembly bills), waste included and
with that location's rules. Available shelf units = pre-assembled − committed (open order quantity and active
safety-stock holds on the parent at that location), never below 0; committed units show under commitments instead.
Each level: \`quantity\` (Σ over every parent) and \`holders\` — the 20 largest parents by \`quantity\`, each
\`{ holderType: "bom" | "sub_assembly", holderId, name, shelfUnits, quantityPerUnit, quantity = shelfUnits × quantityPerUnit }\`
— with \`otherHoldersCount\` / \`otherHoldersQuantity\` for the rest. Not availability: never subtract it from stock.
An untouched material has empty levels and zero totals; an unknown material is 404.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  dataOverrides: { '': { nullAs: 'anyOf' }, 'levels.otherHoldersCount': MIN0 },
  operation: new URL('./shelf-allocation.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});

export const getRawMaterialWorkOrderAllocationRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId/work-order-allocation',
  scope: 'read',
  operationId: 'getRawMaterialWorkOrderAllocation',
  summary: 'Material held by open work orders',
  description: `What open work orders (every status except completed and cancelled) hold of the material, per location.
Per work order and location: required = every item's recipe expanded to leaf materials at the consumption location
(waste included, that location's rules applied) plus manual materials; \`picked\` = Σ picks of build runs not reversed;
\`remaining\` = max(required − picked, 0); \`allocated\` = picked + remaining. A line's location is its own, else the
work order's defaultConsumptionLocationId, else its productionLocationId; demand with no location is reported under
\`totals.unlocated\` (same figures and holders), which stays zero when \`locationIds\` restricts the scope (it belongs to
no location). \`totals.picked/remaining/allocated\` sum the located levels in scope. Holders are work orders
\`{ holderType: "work_order", holderId, name, status, picked, remaining, allocated, quantity = allocated }\`, the 20
largest per location with \`otherHoldersCount\` / \`otherHoldersQuantity\` for the rest; sums are never capped.
Not availability: never subtract it from stock. An untouched material has empty levels and zero totals.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: LocationIdsQuery,
  dataOverrides: { '': { nullAs: 'anyOf' }, 'levels.otherHoldersCount': MIN0, 'totals.unlocated.otherHoldersCount': MIN0 },
  operation: new URL('./work-order-allocation.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, locationIds: scopeVariable(query) }),
});
