import { exact, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { RecipeForest } from '../boms/engine/index.ts';
import { loadAllBillsForest } from '../boms/for-planning.ts';
import { planningMaterials } from '../materials/for-planning.ts';
import { planningStock, type PlanningStock } from '../stock/for-planning.ts';
import { openWorkOrdersForPlanning, type PlanningWorkOrder } from '../work-orders/for-planning.ts';

/** A material as planning shapes its buys. */
export interface PlanMaterial { essential: boolean; leadTimeDays: number; minimumOrderQuantity: Exact; orderMultiple: Exact | null }

/** Everything a plan is computed from: the shop in memory, read once (readPlanInput). */
export interface PlanInput extends PlanningStock {
  forest: RecipeForest;
  /** Materials with a planning field off its default (not essential, a lead time, a minimum, a multiple); any other plans with the defaults. */
  materials: Map<string, PlanMaterial>;
  workOrders: PlanningWorkOrder[];
}

/**
 * The shop as planning reads it, through the owners' reads (for-planning.ts of boms, materials,
 * stock and work orders): about ten set-based statements, whatever the shop's size. Run it inside
 * one repeatable-read transaction so every read sees the same snapshot.
 */
export async function readPlanInput(ctx: ShopContext): Promise<PlanInput> {
  const [forest, materialRows, workOrders] = await Promise.all([loadAllBillsForest(ctx), planningMaterials(ctx), openWorkOrdersForPlanning(ctx)]);
  const stock = await planningStock(ctx, materialRows.map((m) => m.variantId));
  // Only materials whose fields differ from the defaults are kept (the engine plans a material it
  // does not find with them): most of a shop's materials never set a planning field (19 of 20 in
  // the bench's shop), and the map is held until the plan is written.
  const materials = new Map<string, PlanMaterial>();
  for (const m of materialRows) {
    if (m.essential && m.leadTimeDays === 0 && m.orderMultiple === null && !exact(m.minimumOrderQuantity).gt(0)) continue;
    materials.set(m.variantId, {
      essential: m.essential, leadTimeDays: m.leadTimeDays, minimumOrderQuantity: exact(m.minimumOrderQuantity),
      orderMultiple: m.orderMultiple === null ? null : exact(m.orderMultiple),
    });
  }
  return { ...stock, forest, materials, workOrders };
}
