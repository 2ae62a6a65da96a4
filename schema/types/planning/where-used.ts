import { whereUsed, WHERE_USED_CAP, type WhereUsedRow } from '../../../src/modules/planning/where-used.ts';
import { builder } from '../../builder.ts';
import { AssemblyBillRef } from '../boms/bom.ts';
import { BillOwnerTypeEnum } from '../boms/enums.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';

// Where-used (docs/planning.md) on raw materials and assembly bills: every bill that uses them at
// any depth, by path. The request reads the recipe graph once, whatever the number of fields.

const WhereUsedRef = builder.objectRef<WhereUsedRow>('WhereUsed').implement({
  description: 'A bill that uses the item, at any depth, along one path.',
  fields: (t) => ({
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum }),
    ownerId: t.exposeString('ownerId', { description: 'The BOM id or assembly id.' }),
    name: t.exposeString('name'),
    path: t.exposeStringList('path', { description: 'Ids from this bill down to the item, each bill\'s line naming the next.' }),
    quantity: t.field({ type: 'Decimal', description: 'What one unit of this bill needs of the item along this path (waste of a material\'s line included).',
      resolve: (r) => r.quantity.toFixed() }),
  }),
});

const ARGS_DESCRIPTION = 'The location whose rules apply; absent: the base recipes.';
const DESCRIPTION = `Every BOM and assembly bill that uses this at any depth, one row per path (at most ${WHERE_USED_CAP}), by owner type, id and path.`;

builder.objectField(RawMaterialRef, 'whereUsed', (t) => t.field({
  type: [WhereUsedRef],
  description: DESCRIPTION,
  args: { locationId: t.arg.id({ description: ARGS_DESCRIPTION }) },
  resolve: (m, args, ctx) => whereUsed(ctx, { kind: 'raw', id: m.variantId }, args.locationId == null ? null : String(args.locationId)),
}));

builder.objectField(AssemblyBillRef, 'whereUsed', (t) => t.field({
  type: [WhereUsedRef],
  description: DESCRIPTION,
  args: { locationId: t.arg.id({ description: ARGS_DESCRIPTION }) },
  resolve: (a, args, ctx) => whereUsed(ctx, { kind: 'sub', id: a.assemblyId }, args.locationId == null ? null : String(args.locationId)),
}));
