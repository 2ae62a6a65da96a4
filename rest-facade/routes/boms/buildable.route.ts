import { defineRoute } from '../../define-route.ts';
import { LocationIdsQuery, MIN0, scopeVariable } from '../../schema-helpers.ts';
import { BomIdParams } from './schemas.ts';

const description = `How many finished units of the BOM can be built now, per location in scope.
- Leaves are essential raw materials: live platform levels (platform-linked, read through the platform) or the service's own
  levels (virtual); negative levels count as 0. Waste is included; non-essential materials are ignored. Each location uses its
  location rules (every bill of the tree expanded with its own rules there).
- Pre-assembled first: an assembly bill's shelf at the location is used before its components; demand is pushed down the tree
  in topological order, so an assembly used in several places shares one shelf. The finished good's own pre-assembled stock is
  not counted (it is already built).
- \`maxBuildable\`: the largest whole N whose whole demand fits; assembly bills are built from components once their shelf is
  empty. An assembly bill with no essential component (no sub-assembly and no essential raw line) comes only from its shelf and
  is a leaf of origin \`preassembled\`, nodeId \`subassembly:<assemblyId>\`.
- \`sellable\`: the same, except that bills flagged onlyConsumePreassembled come only from their shelf. \`hasSellableSplit\`:
  the tree (base recipe or any location rule) holds such a bill.
- \`limitingComponents\` (for maxBuildable): per leaf, maxUnitsByThisComponent = the largest N that leaf alone allows, with
  the shelves above it used first (so it can exceed availableAtLocation / quantityPerUnit); sorted ascending, ties by larger
  quantityPerUnit, then nodeId; the first three. The first row's maxUnitsByThisComponent equals maxBuildable.
- A BOM with nothing countable (no essential leaf and no pre-assembled leaf) builds 0 and lists no limiting components.
- \`globalFallback\`: true when the finished good has no per-location platform data (no level at any location) or the BOM has
  no variant; then \`totals\` is one computation on the levels and shelves summed over the locations in scope (every location
  when locationIds is omitted), base recipe, and \`perLocation\` is empty. Otherwise totals = sums of the per-location figures.
- \`locationIds\`: repeatable bare numeric ids (a gid://… is 400); omitted or empty = every location; unknown ids are ignored, and
  a scope matching no location gives perLocation [] and totals 0. Rows are ordered by location name, then id.
- Exact arithmetic (3 / 0.3 builds 10); maxBuildable and sellable are whole numbers (floor of the exact value).
- Cost: 6 SQL/platform round trips (7 with a locationIds scope) whatever the tree size or number of locations; the calculation
  itself is linear in tree size × locations (see docs/bills-of-materials.md for measured figures). Callers should cache it.
404 NOT_FOUND for an unknown BOM.`;

export const bomBuildableRoute = defineRoute({
  method: 'GET',
  url: '/bills-of-materials/:id/buildable',
  scope: 'read',
  operationId: 'getBillOfMaterialsBuildable',
  summary: 'Buildable quantities of a BOM per location',
  description,
  tag: 'bills-of-materials',
  params: BomIdParams,
  querystring: LocationIdsQuery,
  extraProblems: [404],
  dataOverrides: {
    'perLocation.maxBuildable': MIN0, 'perLocation.sellable': MIN0,
    'perLocation.limitingComponents': { title: 'BuildableLimitingComponent', maxItems: 3 },
    'perLocation.limitingComponents.maxUnitsByThisComponent': MIN0,
    'totals.maxBuildable': MIN0, 'totals.sellable': MIN0,
  },
  operation: new URL('./buildable.graphql', import.meta.url),
  variables: ({ params, query }) => ({ bomId: params.id, locationIds: scopeVariable(query) }),
});
