import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { INT32_MAX, ListParameter, MIN0, PAGE_OVERRIDES } from '../../schema-helpers.ts';
import { LIST_LIMITS, PAGE_LIMITS, STRING_LIMITS } from '../../../src/kernel/limits.ts';
import { EnumOf, graphqlArgText, graphqlEnumValues, withArgDefaults } from '../../graphql-enums.ts';

/** The sorts of the list (GraphQL's MaterialSort; an unknown sortBy is ignored, not refused: REST takes it as text). */
const MATERIAL_SORTS = graphqlEnumValues('MaterialSort');
/** The sorts in order, the default marked: GraphQL's own description of the argument. */
const SORTS_TEXT = graphqlArgText('rawMaterials', 'sortBy');

export const listRawMaterialsRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials',
  scope: 'read',
  operationId: 'listRawMaterials',
  summary: 'List raw materials',
  description: `Platform-linked and virtual materials in one list, paged (page ≥ 1, pageSize 1–${PAGE_LIMITS.rows}, default 50;
totalPages = ceil(totalCount / pageSize); a page past the end is 200 with no items). \`search\` is a
case-insensitive substring over productName, variantName, sku and vendor; \`vendorFilter\` takes one or more vendors (OR),
repeated or comma-separated (a vendor with a comma in double quotes: \`vendorFilter="Acme, Inc."\`).
Sorting: \`sortBy\` ${SORTS_TEXT} (text sorts are case-insensitive;
an unrecognised sortBy is ignored), \`sortOrder\` asc (default) | desc; ties break on variantId ascending.
\`availableVendors\` lists the distinct vendors of every material of the shop, whatever the filters, sorted.
Only this list's parameters are accepted (another list's filter, e.g. statusFilter, is 400).`,
  tag: 'raw-materials',
  querystring: withArgDefaults('rawMaterials', Type.Object(
    {
      search: Type.Optional(Type.String({ maxLength: STRING_LIMITS.search, description: 'Case-insensitive substring of productName, variantName, sku or vendor.' })),
      usageFilter: Type.Optional(EnumOf('RawMaterialUsageFilter', { description: '`used`: named by at least one BOM or assembly bill (own recipe lines).' })),
      originFilter: Type.Optional(EnumOf('RawMaterialOriginFilter', { description: 'Material origin.' })),
      vendorFilter: Type.Optional(ListParameter(Type.String({ maxLength: STRING_LIMITS.label }), { maxItems: LIST_LIMITS.ids, description: 'Vendors: a row matches any of them.' })),
      sortBy: Type.Optional(Type.String({ maxLength: STRING_LIMITS.sortKey, description: `${SORTS_TEXT}; other values are ignored.` })),
      sortOrder: Type.Optional(EnumOf('RawMaterialSortOrder', { description: 'Sort direction.' })),
      page: Type.Integer({ format: 'int32', minimum: 1, maximum: INT32_MAX, description: '1-based page number.' }),
      pageSize: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_LIMITS.rows }),
    },
    { additionalProperties: false },
  )),
  dataOverrides: {
    items: { title: 'RawMaterialListRow' }, 'items.bomUsageCount': MIN0, 'items.subAssemblyUsageCount': MIN0, ...PAGE_OVERRIDES,
  },
  operation: new URL('./list.graphql', import.meta.url),
  variables: ({ query }) => ({
    search: query.search === undefined || query.search === '' ? null : query.search,
    usageFilter: query.usageFilter,
    originFilter: query.originFilter,
    vendorFilter: query.vendorFilter ?? [],
    sortBy: MATERIAL_SORTS.includes(query.sortBy ?? '') ? query.sortBy : null,
    sortOrder: query.sortOrder,
    page: query.page,
    pageSize: query.pageSize,
  }),
});
