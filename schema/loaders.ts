import DataLoader from 'dataloader';
import type { InventoryView } from '../src/modules/materials/inventory.service.ts';
import { materialInventories, materialsByIds } from '../src/modules/materials/material-batch.service.ts';
import { materialConnectionsOf, type MaterialConnections } from '../src/modules/materials/material-connections.service.ts';
import type { MaterialView } from '../src/modules/materials/material-view.ts';
import { buildBreakdowns, type OrderBreakdown } from '../src/modules/orders/breakdown.service.ts';
import { parseOrderId } from '../src/modules/orders/order-ids.ts';
import { assigneesByIds } from '../src/modules/people/assignees.service.ts';
import type { AssigneeView } from '../src/modules/people/assignees.service.ts';
import { normaliseScope } from '../src/modules/locations/location-scope.ts';
import { listLocations, type LocationView } from '../src/modules/locations/locations.service.ts';
import { billViewsByIds } from '../src/modules/boms/bill-batch.service.ts';
import type { AssemblyBillView, BomView } from '../src/modules/boms/bom-views.ts';
import { bomWorkOrderConnections, type WorkOrderConnectionParams } from '../src/modules/work-orders/work-order-cursor.ts';
import { wholeWorkOrders, type WholeWorkOrder } from '../src/modules/work-orders/work-order-read.service.ts';
import type { WorkOrderHeaderView } from '../src/modules/work-orders/work-order-view.ts';
import { openWorkOrdersForPeople } from '../src/modules/work-orders/for-people.ts';
import type { Connection } from '../src/db/keyset.ts';
import type { PlatformOrderInfo } from '../src/kernel/platform-port/gateway.ts';
import type { GraphQLContext } from './context.ts';

/**
 * Per-request DataLoaders by id, shared by every resolver that follows a link (the links.ts files of schema/types/<type>/),
 * the federation entities (schema/federation.ts) and any other type file. Each batch function reads
 * all the ids one tick asked for in a constant number of statements, always within the caller's
 * shop (ctx.shopId): an id of another shop loads as null, exactly like an unknown id.
 *
 * Loaders live as long as the request's context object, so a value read twice in one operation
 * is read once, and nothing is shared between requests or shops. A mutation that changes what a
 * loader may already hold, then reads it back through the loaders, calls `clearAll()` first.
 */
export interface Loaders {
  /** Raw materials (platform-linked or virtual) by variantId. */
  material: DataLoader<string, MaterialView | null>;
  /** The uses of materials by bills (recipe lines and location-rule overrides), by variantId. */
  materialUsages: DataLoader<string, MaterialConnections>;
  /** BOMs by bomId, with costs and every assembly bill of their recipe (what `bom(bomId)` returns). */
  bom: DataLoader<string, BomView | null>;
  /** Assembly bills by assemblyId. Loading a BOM or an assembly also caches every assembly bill its recipe reaches. */
  assemblyBill: DataLoader<string, AssemblyBillView | null>;
  /**
   * An assembly bill, synchronously when an earlier read of this request already reached it, else
   * through `assemblyBill`. A DataLoader answers even a cache hit only at its next dispatch; the
   * value in hand lets a whole tree resolve in one step, so the lines of every level below share
   * one material batch instead of one per level.
   */
  assemblyBillOf(assemblyId: string): AssemblyBillView | null | Promise<AssemblyBillView | null>;
  /** Whole work orders by workOrderId (what `workOrder(workOrderId)` returns). */
  workOrder: DataLoader<string, WholeWorkOrder | null>;
  /** One cursor page of the work orders that build each BOM, by bomId, for one set of page arguments and filters. */
  bomWorkOrders(params: WorkOrderConnectionParams): DataLoader<string, Connection<WorkOrderHeaderView>>;
  /** Platform locations by bare numeric locationId. */
  location: DataLoader<string, LocationView | null>;
  /** Assignees (retired ones included) by assigneeId. */
  assignee: DataLoader<string, AssigneeView | null>;
  /** Platform orders (id, name, line items) by bare numeric orderId or gid://<platform>/Order/<digits>. */
  order: DataLoader<string, PlatformOrderInfo | null>;
  /** Per-location stock of materials within a location scope (null or empty = every location). */
  inventory(locationIds: readonly string[] | null | undefined): DataLoader<MaterialView, InventoryView, string>;
  /** BOM breakdowns of orders, the rules of one location applied (null = base recipes). */
  breakdown(locationId: string | null): DataLoader<PlatformOrderInfo, OrderBreakdown, string>;
  /** Forgets everything this request has read (after a write), so the next loads read again. */
  clearAll(): void;
}

const byContext = new WeakMap<object, Loaders>();

/** The loaders of this request (created on first use, then kept with the context). */
export function loadersOf(ctx: GraphQLContext): Loaders {
  let loaders = byContext.get(ctx);
  if (!loaders) {
    loaders = createLoaders(ctx);
    byContext.set(ctx, loaders);
  }
  return loaders;
}

/** Orders the values of a Map by the batch's keys, null where absent (the DataLoader contract). */
function inKeyOrder<V>(keys: readonly string[], found: ReadonlyMap<string, V>): (V | null)[] {
  return keys.map((key) => found.get(key) ?? null);
}

function createLoaders(ctx: GraphQLContext): Loaders {
  // BOMs and assembly bills asked for in the same tick share one recipe-forest read, and whatever it
  // reaches is cached as assembly bills: following a sub-assembly tree of any depth costs one read.
  const reached = new Map<string, AssemblyBillView>();
  const bills = new DataLoader<string, BomView | AssemblyBillView | null>(async (keys) => {
    const wanted = keys.map(parseBillKey);
    const views = await billViewsByIds(ctx, wanted.filter((k) => k.bom).map((k) => k.id), wanted.filter((k) => !k.bom).map((k) => k.id));
    for (const [id, view] of views.assemblies) {
      reached.set(id, view);
      assemblyBill.prime(id, view);
    }
    return wanted.map((k) => (k.bom ? views.boms.get(k.id) : views.assemblies.get(k.id)) ?? null);
  });
  const bom = new DataLoader<string, BomView | null>((ids) => bills.loadMany(ids.map((id) => `bom:${id}`)) as Promise<(BomView | null | Error)[]>);
  const assemblyBill: DataLoader<string, AssemblyBillView | null> = new DataLoader(
    (ids) => bills.loadMany(ids.map((id) => `sub_assembly:${id}`)) as Promise<(AssemblyBillView | null | Error)[]>,
  );

  // The shop's locations are one read per request, shared by the location loader and the levels.
  let locations: Promise<LocationView[]> | undefined;
  const allLocations = () => (locations ??= listLocations(ctx));
  const locationNames = async () => new Map((await allLocations()).map((l) => [l.locationId, l.name]));

  const inventories = new Map<string, DataLoader<MaterialView, InventoryView, string>>();
  const inventory = (locationIds: readonly string[] | null | undefined) => {
    const scope = normaliseScope(locationIds);
    const scopeKey = scope ? [...scope].sort().join(',') : '*';
    let loader = inventories.get(scopeKey);
    if (!loader) {
      loader = new DataLoader(async (materials) => {
        const found = await materialInventories(ctx, materials, scope, locationNames);
        return materials.map((m) => found.get(m.variantId)!);
      }, { cacheKeyFn: (m) => m.variantId });
      inventories.set(scopeKey, loader);
    }
    return loader;
  };

  const breakdowns = new Map<string, DataLoader<PlatformOrderInfo, OrderBreakdown, string>>();
  const breakdown = (locationId: string | null) => {
    let loader = breakdowns.get(locationId ?? '*');
    if (!loader) {
      loader = new DataLoader((orders) => buildBreakdowns(ctx, orders, locationId), { cacheKeyFn: (o) => o.orderId });
      breakdowns.set(locationId ?? '*', loader);
    }
    return loader;
  };

  const location: DataLoader<string, LocationView | null> = new DataLoader(async (ids) => {
    const all = new Map((await allLocations()).map((l) => [l.locationId, l]));
    for (const [id, view] of all) location.prime(id, view);
    return inKeyOrder(ids, all);
  });

  const material = new DataLoader<string, MaterialView | null>(async (ids) => inKeyOrder(ids, await materialsByIds(ctx, ids)));
  const assignee = new DataLoader<string, AssigneeView | null>(async (ids) =>
    inKeyOrder(ids, new Map((await assigneesByIds(ctx, ids, openWorkOrdersForPeople)).map((a) => [a.assigneeId, a]))));
  const materialUsages = new DataLoader<string, MaterialConnections>((ids) => materialConnectionsOf(ctx, ids));
  // Whole work orders in the statements of one (headers, parts, plans and stuck pushes batched).
  const workOrder = new DataLoader<string, WholeWorkOrder | null>(async (ids) => inKeyOrder(ids, await wholeWorkOrders(ctx, ids)));
  // Per set of arguments: the BOMs of one selection share them, so their pages are one statement.
  const bomPages = new Map<string, DataLoader<string, Connection<WorkOrderHeaderView>>>();
  const bomWorkOrders = (params: WorkOrderConnectionParams) => {
    const argsKey = JSON.stringify(params);
    let loader = bomPages.get(argsKey);
    if (!loader) {
      loader = new DataLoader((bomIds) => bomWorkOrderConnections(ctx, bomIds, params));
      bomPages.set(argsKey, loader);
    }
    return loader;
  };
  const order = new DataLoader<string, PlatformOrderInfo | null>(async (rawIds) => {
    const parsed = rawIds.map((raw) => parseOrderId(raw, ctx.config.platformName));
    const wanted = [...new Set(parsed.filter((id): id is string => id !== null))];
    const orders = new Map((wanted.length ? await ctx.platform.getOrders(wanted) : []).map((o) => [o.orderId, o]));
    return parsed.map((id) => (id === null ? null : orders.get(id) ?? null));
  });

  return {
    material,
    materialUsages,
    bom,
    assemblyBill,
    assemblyBillOf: (assemblyId) => reached.get(assemblyId) ?? assemblyBill.load(assemblyId),
    workOrder,
    bomWorkOrders,
    location,
    assignee,
    order,
    inventory,
    breakdown,
    clearAll: () => {
      for (const loader of [bills, bom, assemblyBill, material, materialUsages, workOrder, location, assignee, order]) loader.clearAll();
      bomPages.clear();
      reached.clear();
      locations = undefined;
      inventories.clear();
      breakdowns.clear();
    },
  };
}

function parseBillKey(key: string): { bom: boolean; id: string } {
  return key.startsWith('bom:') ? { bom: true, id: key.slice(4) } : { bom: false, id: key.slice('sub_assembly:'.length) };
}

