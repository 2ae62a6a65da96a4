import { archivedBomIds, nodeStates, type NodeKind } from '../../../src/modules/boms/recipe-references.ts';
import type { ShopContext } from '../../../src/kernel/shop-context.ts';
import { builder } from '../../builder.ts';
import { AssemblyBillRef, BomRef } from './bom.ts';
import { CostFactorRef } from './recipe-lines.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';

// `archived` on the catalogue types, batched: every row of one kind a response names is read in
// one statement per kind.

async function archivedFlags(ctx: ShopContext, kind: NodeKind, ids: readonly string[]): Promise<boolean[]> {
  const states = await nodeStates(ctx, { raw: kind === 'raw' ? ids : [], sub: kind === 'sub' ? ids : [], cost: kind === 'cost' ? ids : [] });
  return ids.map((id) => states.get(`${kind}:${id}`)?.archived ?? false);
}

const DESCRIPTION = 'Archived: it cannot be added to recipes (existing lines keep it); set with the matching set…Archived mutation.';

builder.objectField(RawMaterialRef, 'archived', (t) =>
  t.loadable({ type: 'Boolean', description: DESCRIPTION, load: (ids: string[], ctx) => archivedFlags(ctx, 'raw', ids), resolve: (m) => m.variantId }));

builder.objectField(CostFactorRef, 'archived', (t) =>
  t.loadable({ type: 'Boolean', description: DESCRIPTION, load: (ids: string[], ctx) => archivedFlags(ctx, 'cost', ids), resolve: (f) => f.costFactorId }));

builder.objectField(AssemblyBillRef, 'archived', (t) =>
  t.loadable({ type: 'Boolean', description: DESCRIPTION, load: (ids: string[], ctx) => archivedFlags(ctx, 'sub', ids), resolve: (b) => b.assemblyId }));

builder.objectField(BomRef, 'archived', (t) =>
  t.loadable({
    type: 'Boolean',
    description: 'Archived: the BOM is out of the BOM list and its stats; it is still read by id. Set with setBomArchived.',
    load: async (ids: string[], ctx) => {
      const archived = await archivedBomIds(ctx, ids);
      return ids.map((id) => archived.has(id));
    },
    resolve: (b) => b.bomId,
  }));
