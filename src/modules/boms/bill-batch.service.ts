import type { ShopContext } from '../../kernel/shop-context.ts';
import { assemblyBillView, bomView, type AssemblyBillView, type BomView } from './bom-views.ts';
import { forestView } from './bom.service.ts';
import type { BillKey } from './engine/index.ts';

// Batched reads of BOMs and assembly bills by id (GraphQL loaders, federation entities): the same
// views as `getBom` / `getAssemblyBill`, for any number of ids in a constant number of round trips.

export interface BillViews {
  /** The requested BOMs found in the shop, each with every assembly bill its recipe reaches. */
  boms: Map<string, BomView>;
  /** Every assembly bill reached from the roots (requested or nested), so callers can cache them all. */
  assemblies: Map<string, AssemblyBillView>;
}

/**
 * BOMs and assembly bills by id: one recipe-forest statement for all roots at any depth, the view
 * sources attached to its rows (forestView). Ids the shop does not have are simply absent.
 */
export async function billViewsByIds(ctx: ShopContext, bomIds: readonly string[], assemblyIds: readonly string[]): Promise<BillViews> {
  const roots: BillKey[] = [
    ...[...new Set(bomIds)].map((ownerId): BillKey => ({ ownerType: 'bom', ownerId })),
    ...[...new Set(assemblyIds)].map((ownerId): BillKey => ({ ownerType: 'sub_assembly', ownerId })),
  ];
  const out: BillViews = { boms: new Map(), assemblies: new Map() };
  if (roots.length === 0) return out;
  const sources = await forestView(ctx, roots);
  if (sources.forest.bills.size === 0) return out;
  const wantedBoms = new Set(bomIds);
  for (const bill of sources.forest.bills.values()) {
    if (bill.key.ownerType === 'sub_assembly') out.assemblies.set(bill.key.ownerId, assemblyBillView(bill, sources));
    else if (wantedBoms.has(bill.key.ownerId)) out.boms.set(bill.key.ownerId, bomView(bill, sources, true));
  }
  return out;
}
