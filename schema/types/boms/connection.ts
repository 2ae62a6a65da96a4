import { BOM_PAGE_MAX, bomConnection } from '../../../src/modules/boms/bom-cursor.ts';
import { BOM_SORTS, BOM_STATUS_FILTERS } from '../../../src/modules/boms/recipe-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { connectionArgs, connectionType } from '../common/connection.ts';
import { BomRef } from './bom.ts';
import { BOM_SORTS_TEXT, BomSortEnum, BomSortOrderEnum, BomStatusFilterEnum } from './enums.ts';

// BOMs as a cursor connection: the filters and sorts of the paged list (`boms`), keyset-paged so a
// page costs the same wherever it lies.

const BomConnectionRef = connectionType('Boms', BomRef, 'BOM');

builder.queryFields((t) => ({
  bomConnection: t.field({
    type: BomConnectionRef,
    description: `BOMs as a cursor connection: the filters and sorts of boms (${valueList(BOM_SORTS)}); ties break on bomId.`,
    authScopes: { read: true },
    args: {
      search: t.arg.string({ required: false, description: 'Case-insensitive substring of the name, SKU or bomId.' }),
      statusFilter: t.arg({ type: BomStatusFilterEnum, required: false, description: `${valueList(BOM_STATUS_FILTERS, true)}.` }),
      sortBy: t.arg({ type: BomSortEnum, required: false, description: `${BOM_SORTS_TEXT}.` }),
      sortOrder: t.arg({ type: BomSortOrderEnum, required: false, description: 'asc (default) | desc; empty SKUs and prices come last either way.' }),
      ...connectionArgs(t.arg, BOM_PAGE_MAX),
    },
    resolve: (_root, args, ctx) => bomConnection(ctx, {
      search: args.search ?? null, statusFilter: args.statusFilter ?? 'all', sortBy: args.sortBy ?? null, sortOrder: args.sortOrder ?? 'asc',
      first: args.first, after: args.after, last: args.last, before: args.before,
    }),
  }),
}));
