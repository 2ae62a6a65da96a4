import DataLoader from 'dataloader';
import { billViewsByIds } from '../../../src/modules/boms/bill-batch.service.ts';
import type { AssemblyBillView, BomView } from '../../../src/modules/boms/bom-views.ts';
import type { LoaderFactory } from '../common/loader-part.ts';

export interface BomLoaders {
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
}

export const bomLoaders: LoaderFactory<BomLoaders> = (ctx) => {
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
  return {
    loaders: { bom, assemblyBill, assemblyBillOf: (assemblyId) => reached.get(assemblyId) ?? assemblyBill.load(assemblyId) },
    clear: () => {
      for (const loader of [bills, bom, assemblyBill]) loader.clearAll();
      reached.clear();
    },
  };
};

function parseBillKey(key: string): { bom: boolean; id: string } {
  return key.startsWith('bom:') ? { bom: true, id: key.slice(4) } : { bom: false, id: key.slice('sub_assembly:'.length) };
}
