import { MATERIAL_PAGE_MAX, materialConnection } from '../../../src/modules/materials/material-cursor.ts';
import { MATERIAL_SORTS } from '../../../src/modules/materials/material-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { connectionArgs, connectionType } from '../common/connection.ts';
import { MaterialOriginFilterEnum, MaterialSortEnum, MaterialSortOrderEnum, MaterialUsageFilterEnum } from './enums.ts';
import { RawMaterialRef } from './raw-material.ts';

// Raw materials as a cursor connection: the filters and sorts of the paged list (`rawMaterials`),
// keyset-paged so a page costs the same wherever it lies.

const RawMaterialConnectionRef = connectionType('RawMaterials', RawMaterialRef, 'raw material');

builder.queryFields((t) => ({
  rawMaterialConnection: t.field({
    type: RawMaterialConnectionRef,
    description: 'Raw materials (both origins) as a cursor connection: the filters and sorts of rawMaterials; ties break on variantId.',
    authScopes: { read: true },
    args: {
      search: t.arg.string({ required: false, description: 'Case-insensitive substring of the product name, variant name, SKU or vendor.' }),
      usageFilter: t.arg({ type: MaterialUsageFilterEnum, required: false, description: 'used: named by a recipe line of a BOM or assembly bill; unused: by none.' }),
      originFilter: t.arg({ type: MaterialOriginFilterEnum, required: false, description: 'platform-linked or virtual materials only.' }),
      vendorFilter: t.arg.stringList({ required: false, description: 'Any of these vendors (OR).' }),
      sortBy: t.arg({ type: MaterialSortEnum, required: false, description: `${valueList(MATERIAL_SORTS, true)}.` }),
      sortOrder: t.arg({ type: MaterialSortOrderEnum, required: false, description: 'asc (default) | desc.' }),
      ...connectionArgs(t.arg, MATERIAL_PAGE_MAX),
    },
    resolve: (_root, args, ctx) => materialConnection(ctx, {
      search: args.search ?? null, usageFilter: args.usageFilter ?? 'all', originFilter: args.originFilter ?? 'all', vendorFilter: args.vendorFilter ?? [],
      sortBy: args.sortBy ?? null, sortOrder: args.sortOrder ?? 'asc', first: args.first, after: args.after, last: args.last, before: args.before,
    }),
  }),
}));
