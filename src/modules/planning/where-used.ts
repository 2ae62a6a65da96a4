import { ONE, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { effectiveLines, lineNeed, type BillKey, type BillOwnerType, type RecipeForest } from '../boms/engine/index.ts';
import { loadAllBillsForest } from '../boms/for-planning.ts';
import type { StockedLineType } from '../boms/recipe-vocabulary.ts';

// Where-used (decisions "Planning"): every BOM and assembly bill that uses a raw material or an
// assembly bill at any depth, each path once, with the quantity one unit of that bill needs of it
// along the path (waste of the material's line included; a location's rules when one is given).
// One read of the recipe graph (every bill of the shop), then a walk up in memory.

export interface WhereUsedRow {
  ownerType: BillOwnerType;
  ownerId: string;
  name: string;
  /** Ids from this bill down to the item: ["BOM-1001", "ASM-JAR-L-LAV", "44012"]. */
  path: string[];
  /** Per unit of this bill, along this path. */
  quantity: Exact;
}

/** Rows a where-used answers at most (a shared assembly deep in many BOMs has many paths). */
export const WHERE_USED_CAP = 1000;

const forests = new WeakMap<object, Promise<RecipeForest>>();
/** The request's recipe graph, read once however many where-used fields it resolves. */
function forestOf(ctx: ShopContext): Promise<RecipeForest> {
  let forest = forests.get(ctx);
  if (!forest) forests.set(ctx, (forest = loadAllBillsForest(ctx)));
  return forest;
}

export async function whereUsed(ctx: ShopContext, item: { kind: StockedLineType; id: string }, locationId: string | null): Promise<WhereUsedRow[]> {
  const forest = await forestOf(ctx);
  // node → the bills whose recipe (at the location) names it, with the quantity per unit of that bill.
  const users = new Map<string, { bill: BillKey; name: string; perUnit: Exact }[]>();
  for (const bill of forest.bills.values()) {
    for (const line of effectiveLines(forest, bill.key, locationId)) {
      if (line.lineType === 'cost') continue;
      const key = `${line.lineType}:${line.nodeId}`;
      const perUnit = line.lineType === 'raw' ? lineNeed(line.quantity, line.wastePercentage) : line.quantity;
      const list = users.get(key) ?? [];
      list.push({ bill: bill.key, name: bill.name, perUnit });
      users.set(key, list);
    }
  }
  const rows: WhereUsedRow[] = [];
  const climb = (key: string, below: string[], quantity: Exact, seen: Set<string>) => {
    for (const use of users.get(key) ?? []) {
      if (rows.length >= WHERE_USED_CAP || seen.has(use.bill.ownerId)) continue;
      const path = [use.bill.ownerId, ...below];
      const perTop = use.perUnit.times(quantity);
      rows.push({ ownerType: use.bill.ownerType, ownerId: use.bill.ownerId, name: use.name, path, quantity: perTop });
      if (use.bill.ownerType === 'sub_assembly') climb(`sub:${use.bill.ownerId}`, path, perTop, new Set([...seen, use.bill.ownerId]));
    }
  };
  climb(`${item.kind}:${item.id}`, [item.id], ONE, new Set());
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.sort((a, b) => text(a.ownerType, b.ownerType) || text(a.ownerId, b.ownerId) || text(a.path.join('\u0000'), b.path.join('\u0000')));
}
