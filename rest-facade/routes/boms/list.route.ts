import { Type } from '@sinclair/typebox';
import { defineRoute, type GraphQLData } from '../../define-route.ts';
import { INT32_MAX, MIN0, PAGE_OVERRIDES } from '../../schema-helpers.ts';
import { PAGE_LIMITS, STRING_LIMITS } from '../../../src/kernel/limits.ts';
import { EnumOf, graphqlArgText, graphqlEnumValues, withArgDefaults } from '../../graphql-enums.ts';

/** The sorts of the list (GraphQL's BomSort; an unknown sortBy is ignored, not refused: REST takes it as text). */
const BOM_SORTS = graphqlEnumValues('BomSort');
/** The sorts in order, the default marked, with how each orders: GraphQL's own description of the argument. */
const SORTS_TEXT = graphqlArgText('boms', 'sortBy');
/** The sorts in order, without their notes; the first is the default. */
const SORTS_IN_ORDER = SORTS_TEXT.split(' | ').map((sort) => sort.replace(/ [(].*$/, ''));

const description = `BOMs of the shop, filtered, sorted and paged, with \`stats\` over every BOM whatever the filters.
- \`search\`: case-insensitive substring over name, sku and bomId. \`statusFilter\`: all (default) | active | inactive.
- \`sortBy\`: ${SORTS_TEXT}; an unknown value is
  ignored (${SORTS_IN_ORDER[0]}). \`sortOrder\`: asc (default) | desc. Nulls (sku, price of BOMs without a platform variant) sort last in
  both directions; ties break on bomId ascending.
- \`page\` ≥ 1 (default 1), \`pageSize\` 1–${PAGE_LIMITS.rows} (default 50); totalPages = ceil(totalCount / pageSize); a page past the end
  is 200 with no items.
- Costs: raw lines unitCost × quantity × (1 + waste/100), sub lines quantity × the assembly bill's unit cost,
  cost-factor lines quantity × unitCost, on base recipes; exact, rounded half-up to 6 places in the response.
- stats: total, active, inactive, totalValue = Σ totalCost, avgCost = totalValue / total (0 when none), platformLinked = BOMs
  with a finished-good variant.
- Cost: 1 SQL statement whatever the page size or number of BOMs: costs come from a stored roll-up kept current on every write that changes a recipe, a cost factor or a material cost.`;

export const listBomsRoute = defineRoute({
  method: 'GET',
  url: '/bills-of-materials',
  scope: 'read',
  operationId: 'listBillsOfMaterials',
  summary: 'List bills of materials',
  description,
  tag: 'bills-of-materials',
  querystring: withArgDefaults('boms', Type.Object({
    search: Type.Optional(Type.String({ maxLength: STRING_LIMITS.search })),
    statusFilter: Type.Optional(EnumOf('BomStatusFilter')),
    sortBy: Type.Optional(Type.String({ maxLength: STRING_LIMITS.sortKey, description: `${SORTS_IN_ORDER.join(' | ')}; anything else is ignored.` })),
    sortOrder: Type.Optional(EnumOf('BomSortOrder')),
    page: Type.Integer({ format: 'int32', minimum: 1, maximum: INT32_MAX }),
    pageSize: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_LIMITS.rows }),
  }, { additionalProperties: false })),
  dataOverrides: {
    items: {
      title: 'BillOfMaterialsListRow',
      // Counted by toData from the selected lines.
      omit: ['rawMaterialLines', 'subAssemblyLines', 'costFactorLines'],
      add: {
        rawMaterialCount: Type.Integer({ minimum: 0, description: 'Raw-material lines of the base recipe.' }),
        subAssemblyCount: Type.Integer({ minimum: 0, description: 'Sub-assembly lines of the base recipe.' }),
        costFactorCount: Type.Integer({ minimum: 0, description: 'Cost-factor lines of the base recipe.' }),
      },
    },
    ...PAGE_OVERRIDES, 'stats.total': MIN0, 'stats.active': MIN0, 'stats.inactive': MIN0, 'stats.platformLinked': MIN0,
  },
  operation: new URL('./list.graphql', import.meta.url),
  variables: ({ query }) => ({
    search: query.search ?? null, statusFilter: query.statusFilter, sortBy: BOM_SORTS.includes(query.sortBy ?? '') ? query.sortBy : null,
    sortOrder: query.sortOrder, page: query.page, pageSize: query.pageSize,
  }),
  // GraphQL has no line counts: the list selects the lines' ids only and counts them here.
  toData: ({ boms }) => ({
    ...boms,
    items: boms.items.map((b: GraphQLData) => ({
      ...b, rawMaterialCount: b.rawMaterialLines.length, subAssemblyCount: b.subAssemblyLines.length, costFactorCount: b.costFactorLines.length,
    })),
  }),
});
