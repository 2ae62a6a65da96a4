import { Decimal as BaseDecimal } from 'decimal.js';
import type { BillOwnerType, Dataset, DatasetWorkOrder } from '../../src/dataset/types.ts';

// An independent model of the work-order rules of the dataset spec (docs/datasets.md) and
// docs/work-orders.md, written from the dataset document alone: recipe lines with location rules,
// effective need, the material plan, and what a build run consumes and deducts. It never reads the
// database or the service code; every figure is exact (decimal.js with 200 digits) until it is
// rounded half-up to the 6 places the responses carry.

export const D = BaseDecimal.clone({ precision: 200, rounding: BaseDecimal.ROUND_HALF_UP });
export type D = BaseDecimal;
const zero = new D(0);
const one = new D(1);

/** Half-up to 6 fractional digits, as a JSON number would carry it. */
export const round6 = (d: D): number => Number(d.toDecimalPlaces(6, D.ROUND_HALF_UP).toFixed());
const r6 = (d: D): D => d.toDecimalPlaces(6, D.ROUND_HALF_UP);

export interface RecipeLine {
  /** true = sub-assembly line (nodeId is an assembly bill id); false = raw-material line. */
  sub: boolean;
  nodeId: string;
  quantity: D;
  /** Raw lines only; 0 on sub-assembly lines. */
  waste: D;
}

export interface PlanRow { variantId: string; locationId: string | null; required: number; picked: number; remaining: number }

export interface OraclePick { stock: 'material' | 'preassembled'; itemId: string; locationId: string; quantity: number; deducted: number }

export interface OracleRun {
  picks: OraclePick[];
  /** onlyConsumePreassembled bills whose shelf lacked units: assembly id → missing quantity (6 places). */
  preassembledShort: Map<string, number>;
  /** Clamped deductions: `${variantId}|${locationId}` → the whole units the level lacked. */
  negative: Map<string, number>;
  /** Expected change of every stock-snapshot key the run touches (exact decimals). */
  snapshotDelta: Map<string, D>;
}

const key = (...parts: (string | null)[]) => parts.map((p) => p ?? '∅').join('|');

export class WorkOrderOracle {
  private readonly assemblies: Map<string, Dataset['assemblyBills'][number]>;
  private readonly boms: Map<string, Dataset['boms'][number]>;
  private readonly platformMaterials: Set<string>;
  /** Mutable stock model: material levels (virtual and platform-linked live levels), shelves and buildRun residuals. */
  readonly levels = new Map<string, D>();
  readonly shelves = new Map<string, D>();
  readonly residuals = new Map<string, D>();
  /** Picks added by runs started in the test, per work order (material picks only). */
  private readonly newPicks = new Map<string, { variantId: string; locationId: string; quantity: D }[]>();
  /** Units of production runs started in the test, per work order. */
  private readonly newUnits = new Map<string, { itemId: string; quantity: D }[]>();

  private readonly ds: Dataset;

  constructor(ds: Dataset) {
    this.ds = ds;
    this.assemblies = new Map(ds.assemblyBills.map((a) => [a.assemblyId, a]));
    this.boms = new Map(ds.boms.map((b) => [b.bomId, b]));
    this.platformMaterials = new Set(ds.materials.filter((m) => m.origin === 'platform').map((m) => m.variantId));
    for (const m of ds.materials) if (m.origin === 'virtual') for (const l of m.levels) this.levels.set(key(m.variantId, l.locationId), new D(l.available));
    for (const v of ds.platform.variants) {
      if (this.platformMaterials.has(v.variantId)) for (const l of v.levels) this.levels.set(key(v.variantId, l.locationId), new D(l.available));
    }
    for (const p of ds.preassembled) this.shelves.set(key(p.itemId, p.locationId), (this.shelves.get(key(p.itemId, p.locationId)) ?? zero).plus(p.quantity));
    for (const r of ds.residuals) if (r.kind === 'buildRun') this.residuals.set(key(r.itemId, r.locationId), new D(r.quantity));
  }

  isAssembly(id: string): boolean {
    return this.assemblies.has(id);
  }

  /** A bill's lines at a location: base lines, then that location's overrides in order (none when unlocated). */
  lines(ownerType: BillOwnerType, ownerId: string, locationId: string | null): RecipeLine[] {
    const recipe = ownerType === 'bom' ? this.boms.get(ownerId) : this.assemblies.get(ownerId);
    if (!recipe) throw new Error(`unknown ${ownerType} ${ownerId}`);
    let lines: RecipeLine[] = [
      ...recipe.rawMaterialReferences.map((l) => ({ sub: false, nodeId: l.nodeId, quantity: new D(l.quantity), waste: new D(l.wastePercentage) })),
      ...recipe.subAssemblyReferences.map((l) => ({ sub: true, nodeId: l.nodeId, quantity: new D(l.quantity), waste: zero })),
    ];
    if (locationId === null) return lines;
    const rules = this.ds.locationRules.filter((r) => r.ownerType === ownerType && r.ownerId === ownerId && r.locationId === locationId);
    for (const o of rules.flatMap((r) => r.overrides)) {
      switch (o.action) {
        case 'remove':
          lines = lines.filter((l) => l.nodeId !== o.nodeId);
          break;
        case 'replace':
          lines = lines.map((l) => {
            if (l.nodeId !== o.nodeId) return l;
            const sub = this.isAssembly(o.replacementNodeId);
            return {
              sub, nodeId: o.replacementNodeId, quantity: o.quantity === null ? l.quantity : new D(o.quantity),
              waste: sub ? zero : o.wastePercentage === null ? l.waste : new D(o.wastePercentage),
            };
          });
          break;
        case 'adjust':
          lines = lines.map((l) => (l.nodeId !== o.nodeId ? l : {
            ...l, quantity: o.quantity === null ? l.quantity : new D(o.quantity),
            waste: l.sub || o.wastePercentage === null ? l.waste : new D(o.wastePercentage),
          }));
          break;
        case 'add': {
          const sub = this.isAssembly(o.nodeId);
          lines.push({ sub, nodeId: o.nodeId, quantity: new D(o.quantity), waste: sub ? zero : new D(o.wastePercentage) });
          break;
        }
      }
    }
    return lines;
  }

  /** Effective need of every leaf raw material per unit of a bill at a location (every nested bill with its own rules there). */
  effectiveNeed(ownerType: BillOwnerType, ownerId: string, locationId: string | null): Map<string, D> {
    const need = new Map<string, D>();
    const walk = (type: BillOwnerType, id: string, factor: D) => {
      for (const l of this.lines(type, id, locationId)) {
        if (l.sub) walk('sub_assembly', l.nodeId, factor.times(l.quantity));
        else need.set(l.nodeId, (need.get(l.nodeId) ?? zero).plus(factor.times(l.quantity).times(one.plus(l.waste.div(100)))));
      }
    };
    walk(ownerType, ownerId, one);
    return need;
  }

  /** Where a work order's item lines are consumed. */
  static itemLocation(wo: DatasetWorkOrder): string | null {
    return wo.defaultConsumptionLocationId ?? wo.productionLocationId ?? null;
  }

  /**
   * Units of each item started by production runs not reversed (dataset runs and runs started in
   * the test); rework runs start no units.
   */
  startedUnits(wo: DatasetWorkOrder): Map<string, D> {
    const started = new Map<string, D>();
    const add = (itemId: string, q: D) => started.set(itemId, (started.get(itemId) ?? zero).plus(q));
    for (const run of wo.buildRuns) if (run.status !== 'reversed' && run.runType === 'production') for (const i of run.items) add(i.itemId, new D(i.quantity));
    for (const r of this.newUnits.get(wo.workOrderId) ?? []) add(r.itemId, r.quantity);
    return started;
  }

  /** Q (Σ item quantities) and Q − started (Σ per item of max(quantity − started, 0)). */
  units(wo: DatasetWorkOrder, started = this.startedUnits(wo)): { total: D; left: D } {
    let total = zero;
    let left = zero;
    for (const i of wo.items) {
      total = total.plus(i.quantity);
      left = left.plus(D.max(new D(i.quantity).minus(started.get(i.itemId) ?? zero), 0));
    }
    return { total, left };
  }

  /** A manual line's part still demanded: line × (Q − started) / Q (the whole line when Q is 0). */
  static manualShare(line: D, units: { total: D; left: D }): D {
    return units.total.gt(0) ? line.times(units.left).div(units.total) : line;
  }

  /**
   * The material plan, in the words of the decisions: per (material, location), picked = material
   * picks of runs not reversed; remaining = what the units not yet started still need (each item's
   * quantity − units of production runs not reversed, pushed down its recipe at the consumption
   * location with that location's rules, shelves first as a run would take them, waste included;
   * unlocated: the base recipes) + every manual line × (Q − started) / Q at its location;
   * required = picked + remaining. Rows: every (material, location) a pick, a manual line or a
   * remaining recipe need names; sorted by material then location.
   */
  plan(wo: DatasetWorkOrder): PlanRow[] {
    const remaining = new Map<string, D>();
    const picked = new Map<string, D>();
    const add = (map: Map<string, D>, variantId: string, locationId: string | null, q: D) => {
      const k = JSON.stringify([variantId, locationId]);
      map.set(k, (map.get(k) ?? zero).plus(q));
    };
    const itemLocation = WorkOrderOracle.itemLocation(wo);
    const started = this.startedUnits(wo);
    const roots = wo.items.map((i) => ({ ownerType: i.ownerType, ownerId: i.ownerId, quantity: D.max(new D(i.quantity).minus(started.get(i.itemId) ?? zero), 0) }))
      .filter((r) => r.quantity.gt(0));
    if (itemLocation === null) {
      for (const r of roots) for (const [variantId, need] of this.effectiveNeed(r.ownerType, r.ownerId, null)) add(remaining, variantId, null, need.times(r.quantity));
    } else if (roots.length > 0) {
      for (const [variantId, q] of this.pushDown(roots, itemLocation).material) add(remaining, variantId, itemLocation, q);
    }
    const units = this.units(wo, started);
    for (const m of wo.manualMaterials) add(remaining, m.variantId, m.locationId ?? itemLocation, WorkOrderOracle.manualShare(new D(m.quantity), units));
    for (const run of wo.buildRuns) if (run.status !== 'reversed') for (const p of run.picks) add(picked, p.variantId, p.locationId, new D(p.quantity));
    for (const p of this.newPicks.get(wo.workOrderId) ?? []) add(picked, p.variantId, p.locationId, p.quantity);
    const keys = [...new Set([...remaining.keys(), ...picked.keys()])];
    return keys.map((k) => {
      const [variantId, locationId] = JSON.parse(k) as [string, string | null];
      const rest = remaining.get(k) ?? zero;
      const pic = picked.get(k) ?? zero;
      return { variantId, locationId, required: round6(pic.plus(rest)), picked: round6(pic), remaining: round6(rest) };
    }).sort(comparePlanRows);
  }

  /**
   * The build-run push-down of several roots at once at `locationId`, against the model's shelves
   * (not changed): parents before children, shelves first (never a root's own: the roots are not
   * pushed through their own shelves), onlyConsumePreassembled shortfalls, raw lines with waste.
   */
  pushDown(roots: readonly { ownerType: BillOwnerType; ownerId: string; quantity: D }[], locationId: string): { material: Map<string, D>; shelfTaken: Map<string, D>; preassembledShort: Map<string, number> } {
    const linesOf = (root: { ownerType: BillOwnerType; ownerId: string } | string) =>
      (typeof root === 'string' ? this.lines('sub_assembly', root, locationId) : this.lines(root.ownerType, root.ownerId, locationId));
    // Reverse post-order of a depth-first walk from the roots: every parent before its children.
    const order: string[] = [];
    const seen = new Set<string>();
    const visit = (from: { ownerType: BillOwnerType; ownerId: string } | string) => {
      for (const l of linesOf(from)) {
        if (l.sub && !seen.has(l.nodeId)) {
          seen.add(l.nodeId);
          visit(l.nodeId);
          order.unshift(l.nodeId);
        }
      }
    };
    for (const r of [...roots].reverse()) visit(r);
    const demand = new Map<string, D>();
    const material = new Map<string, D>();
    const shelfTaken = new Map<string, D>();
    const preassembledShort = new Map<string, number>();
    const push = (from: { ownerType: BillOwnerType; ownerId: string } | string, q: D) => {
      for (const l of linesOf(from)) {
        if (l.sub) demand.set(l.nodeId, (demand.get(l.nodeId) ?? zero).plus(q.times(l.quantity)));
        else material.set(l.nodeId, (material.get(l.nodeId) ?? zero).plus(q.times(l.quantity).times(one.plus(l.waste.div(100)))));
      }
    };
    for (const r of roots) push(r, r.quantity);
    for (const a of order) {
      const d = demand.get(a) ?? zero;
      if (!d.gt(0)) continue;
      const shelf = this.shelves.get(key(a, locationId)) ?? zero;
      const take = shelf.gt(0) ? D.min(d, shelf) : zero;
      if (take.gt(0)) shelfTaken.set(a, take);
      const rest = d.minus(take);
      if (!rest.gt(0)) continue;
      if (this.assemblies.get(a)!.onlyConsumePreassembled) preassembledShort.set(a, round6(rest));
      else push(a, rest);
    }
    return { material, shelfTaken, preassembledShort };
  }

  /**
   * Starts a run of `quantity` units of one item at `locationId` in the model: push-down in topological
   * order with shelves first (never the root's own), onlyConsumePreassembled shortfalls, raw lines with
   * waste, each consumed quantity rounded to 6 places, then the residual carry and the clamp. The model's
   * stock is updated, and the run's material picks are recorded for the work order's plan.
   */
  startRun(wo: DatasetWorkOrder, ownerType: BillOwnerType, ownerId: string, locationId: string, quantity: D): OracleRun {
    const { material, shelfTaken, preassembledShort } = this.pushDown([{ ownerType, ownerId, quantity }], locationId);
    // A production run of q of the work order's Q units consumes q/Q of every manual line: the share
    // the lines lose as the units move from "not yet started" to "started".
    const item = wo.items.find((i) => i.ownerType === ownerType && i.ownerId === ownerId)!;
    const before = this.units(wo);
    const startedAfter = this.startedUnits(wo);
    startedAfter.set(item.itemId, (startedAfter.get(item.itemId) ?? zero).plus(quantity));
    const after = this.units(wo, startedAfter);
    const manual = new Map<string, D>();
    for (const m of wo.manualMaterials) {
      const at = m.locationId ?? locationId;
      const line = new D(m.quantity);
      // Each share rounded to 6 places before the difference: the runs of a work order take each line exactly once.
      const taken = r6(WorkOrderOracle.manualShare(line, before)).minus(r6(WorkOrderOracle.manualShare(line, after)));
      if (taken.gt(0)) manual.set(key(m.variantId, at), (manual.get(key(m.variantId, at)) ?? zero).plus(taken));
    }
    const units = this.newUnits.get(wo.workOrderId) ?? [];
    units.push({ itemId: item.itemId, quantity });
    this.newUnits.set(wo.workOrderId, units);

    const allowNegative = this.ds.shop.settings.allowNegativeInventory;
    const picks: OraclePick[] = [];
    const negative = new Map<string, number>();
    const snapshotDelta = new Map<string, D>();
    const consume = (stock: 'material' | 'preassembled', itemId: string, at: string, consumed: D) => {
      if (!consumed.gt(0)) return;
      const k = key(itemId, at);
      const store = stock === 'material' ? this.levels : this.shelves;
      const level = store.get(k) ?? zero;
      const carried = (this.residuals.get(k) ?? zero).plus(consumed);
      const whole = carried.floor();
      const deducted = whole.gt(level) && !allowNegative ? D.max(level, 0) : whole;
      if (stock === 'material' && whole.gt(D.max(level, 0))) negative.set(k, whole.minus(D.max(level, 0)).toNumber());
      const residual = carried.minus(whole);
      store.set(k, level.minus(deducted));
      this.residuals.set(k, residual);
      picks.push({ stock, itemId, locationId: at, quantity: consumed.toNumber(), deducted: deducted.toNumber() });
      const bump = (snapKey: string, delta: D) => { if (!delta.isZero()) snapshotDelta.set(snapKey, (snapshotDelta.get(snapKey) ?? zero).plus(delta)); };
      if (stock === 'preassembled') bump(`shelf|${itemId}|${at}`, deducted.neg());
      else if (this.platformMaterials.has(itemId)) bump(`pending|${itemId}|${at}`, deducted.neg());
      else bump(`level|${itemId}|${at}`, deducted.neg());
      bump(`residual|buildRun|${itemId}|${at}`, residual.minus(carried.minus(consumed)));
      if (stock === 'material') {
        const list = this.newPicks.get(wo.workOrderId) ?? [];
        list.push({ variantId: itemId, locationId: at, quantity: consumed });
        this.newPicks.set(wo.workOrderId, list);
      }
    };
    // Recipe and manual quantities of one material at one location are one pick (each rounded to 6 places, then summed).
    const materialAt = new Map(manual);
    for (const [variantId, exact] of material) materialAt.set(key(variantId, locationId), (materialAt.get(key(variantId, locationId)) ?? zero).plus(r6(exact)));
    for (const [k, q] of materialAt) {
      const [variantId, at] = k.split('|') as [string, string];
      consume('material', variantId, at, q);
    }
    for (const [assemblyId, exact] of shelfTaken) consume('preassembled', assemblyId, locationId, r6(exact));
    return { picks: picks.sort(comparePicks), preassembledShort, negative, snapshotDelta };
  }
}

export function comparePlanRows(a: { variantId: string; locationId: string | null }, b: { variantId: string; locationId: string | null }): number {
  return a.variantId.localeCompare(b.variantId) || (a.locationId ?? '').localeCompare(b.locationId ?? '');
}

export function comparePicks(a: { stock: string; itemId: string; locationId: string }, b: { stock: string; itemId: string; locationId: string }): number {
  return a.stock.localeCompare(b.stock) || a.itemId.localeCompare(b.itemId) || a.locationId.localeCompare(b.locationId);
}
