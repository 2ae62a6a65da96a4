import type { InterfaceRef, ObjectRef } from '@pothos/core';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { loadersOf } from '../../loaders.ts';
import { AssigneeRef } from '../people/assignee.ts';
import { AssemblyBillRef, BomRef } from '../boms/bom.ts';
import type { Types } from './connection.ts';
import { LocationRef } from '../locations/location.ts';
import { OrderRef } from '../orders/links.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';
import { WorkOrderRef } from '../work-orders/work-order.ts';

// What an id field may name, and how the request's loaders read it (schema/loaders.ts): every row of
// a list asks in the same tick, so a page of rows costs one batch per kind, never one read per row.
const TARGETS = {
  Location: { ref: LocationRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).location.load(id) },
  RawMaterial: { ref: RawMaterialRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).material.load(id) },
  Bom: { ref: BomRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).bom.load(id) },
  AssemblyBill: { ref: AssemblyBillRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).assemblyBillOf(id) },
  WorkOrder: { ref: WorkOrderRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).workOrder.load(id) },
  Assignee: { ref: AssigneeRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).assignee.load(id) },
  Order: { ref: OrderRef, load: (ctx: GraphQLContext, id: string) => loadersOf(ctx).order.load(id) },
} as const;

export type LinkTarget = keyof typeof TARGETS;

/**
 * Adds `field` to `parent`: the object of type `target` that `id(row)` names, through the request's
 * loaders, always within the caller's shop. Nullable: null when the row names no such object (`id`
 * returns null, e.g. an owner of the other kind) or it no longer exists.
 */
export function linkField<T>(
  parent: ObjectRef<Types, T> | InterfaceRef<Types, T>, field: string, target: LinkTarget, description: string,
  id: (row: T) => string | null | undefined,
): void {
  const { ref, load } = TARGETS[target];
  // Typed loosely: Pothos field builders are invariant in their parent type.
  const define = (t: any) => t.field({
    type: ref, nullable: true, description,
    resolve: (row: T, _args: unknown, ctx: GraphQLContext) => {
      const key = id(row);
      return key ? load(ctx, key) : null;
    },
  });
  if (parent.kind === 'Interface') builder.interfaceField(parent as InterfaceRef<Types, T>, field, define);
  else builder.objectField(parent as ObjectRef<Types, T>, field, define);
}

/** `bom` and `assemblyBill` of a row that names its bill by `ownerType` (`bom` | `sub_assembly`) and `ownerId`. */
export function billOwnerFields<T>(
  parent: ObjectRef<Types, T>, owner: (row: T) => { ownerType: string | null; ownerId: string | null }, what: string,
): void {
  linkField(parent, 'bom', 'Bom', `The BOM ${what} (ownerType \`bom\`); null for an assembly bill's, or if the BOM no longer exists.`,
    (row) => (owner(row).ownerType === 'bom' ? owner(row).ownerId : null));
  linkField(parent, 'assemblyBill', 'AssemblyBill', `The assembly bill ${what} (ownerType \`sub_assembly\`); null for a BOM's, or if the bill no longer exists.`,
    (row) => (owner(row).ownerType === 'sub_assembly' ? owner(row).ownerId : null));
}
