import { builder } from './builder.ts';
import { ENTITY_KEYS } from './entity-keys.ts';
import { loadersOf } from './loaders.ts';
import { AssemblyBillRef, BomRef } from './types/boms/bom.ts';
import { OrderRef } from './types/orders/links.ts';
import { LocationRef } from './types/locations/location.ts';
import { RawMaterialRef } from './types/materials/raw-material.ts';
import { WorkOrderRef } from './types/work-orders/work-order.ts';

// Federation 2 entities: the types other subgraphs of a shop's supergraph can reference by key.
// Each is the type clients navigate to (the whole read, as the single-item query returns it), and
// `_entities` resolves representations through the request's loaders: a batch of N representations
// of one type is one batch read, within the caller's shop — another shop's id resolves to null,
// like an unknown id. The entities and their keys are ENTITY_KEYS (schema/entity-keys.ts), against which
// every representation is checked before execution (schema/input-limits.ts): a resolver here only
// ever sees a known __typename with its key.

builder.asEntity(RawMaterialRef, {
  key: builder.selection<{ variantId: string }>(ENTITY_KEYS.RawMaterial),
  resolveReference: (ref, ctx) => loadersOf(ctx).material.load(ref.variantId),
});

builder.asEntity(BomRef, {
  key: builder.selection<{ bomId: string }>(ENTITY_KEYS.Bom),
  resolveReference: (ref, ctx) => loadersOf(ctx).bom.load(ref.bomId),
});

builder.asEntity(AssemblyBillRef, {
  key: builder.selection<{ assemblyId: string }>(ENTITY_KEYS.AssemblyBill),
  resolveReference: (ref, ctx) => loadersOf(ctx).assemblyBill.load(ref.assemblyId),
});

builder.asEntity(WorkOrderRef, {
  key: builder.selection<{ workOrderId: string }>(ENTITY_KEYS.WorkOrder),
  resolveReference: (ref, ctx) => loadersOf(ctx).workOrder.load(String(ref.workOrderId)),
});

builder.asEntity(LocationRef, {
  key: builder.selection<{ locationId: string }>(ENTITY_KEYS.Location),
  resolveReference: (ref, ctx) => loadersOf(ctx).location.load(ref.locationId),
});

builder.asEntity(OrderRef, {
  key: builder.selection<{ orderId: string }>(ENTITY_KEYS.Order),
  resolveReference: (ref, ctx) => loadersOf(ctx).order.load(ref.orderId),
});
