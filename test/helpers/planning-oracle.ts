import { Decimal as BaseDecimal } from 'decimal.js';
import type { Dataset } from '../../src/dataset/types.ts';

// An independent planner, written from the rules of docs/planning.md (decisions "Planning") over a
// dataset document, not from the engine's code: its own rule application, its own item order
// (Kahn's algorithm: an item once every bill that uses it is done), its own netting (cumulative
// sums against the supply), decimal.js at 200 digits. It writes the plan as `bomcore plan` does.

const D = BaseDecimal.clone({ precision: 200, rounding: BaseDecimal.ROUND_HALF_UP });
type D = BaseDecimal;
const zero = new D(0);
const RANK: Record<string, number> = { order: 0, work_order: 1, safety_stock: 2, make: 3, what_if: 4 };
const CAP = 20;

interface Line { sub: boolean; node: string; q: D; w: D }
interface Need { type: string; id: string; q: D; needBy: string; created: string }

const w6 = (d: D) => d.toDecimalPlaces(6, D.ROUND_HALF_UP).toFixed();
const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const locCmp = (a: string, b: string) => a.length - b.length || cmpText(a, b);
const minusDays = (date: string, days: number) => (days === 0 ? date : new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10));

export function oraclePlan(ds: Dataset, asOf: string) {
  const assemblies = new Map(ds.assemblyBills.map((a) => [a.assemblyId, a]));
  const boms = new Map(ds.boms.map((b) => [b.bomId, b]));
  const fgBom = new Map<string, string>();
  for (const b of [...ds.boms].sort((x, y) => cmpText(x.bomId, y.bomId))) if (b.variantId !== null && !fgBom.has(b.variantId)) fgBom.set(b.variantId, b.bomId);
  const materials = new Map(ds.materials.map((m) => [m.variantId, m]));
  const platformMaterials = new Set(ds.materials.filter((m) => m.origin === 'platform').map((m) => m.variantId));
  const level = new Map<string, D>();
  for (const v of ds.platform.variants) if (platformMaterials.has(v.variantId)) for (const l of v.levels) level.set(`${l.locationId}|${v.variantId}`, new D(l.available));
  for (const m of ds.materials) if (m.origin === 'virtual') for (const l of m.levels) level.set(`${l.locationId}|${m.variantId}`, new D(l.available));
  const shelf = new Map<string, D>();
  for (const p of ds.preassembled) shelf.set(`${p.locationId}|${p.itemId}`, (shelf.get(`${p.locationId}|${p.itemId}`) ?? zero).plus(p.quantity));

  const lines = (type: 'bom' | 'sub_assembly', id: string, loc: string): Line[] => {
    const recipe = type === 'bom' ? boms.get(id) : assemblies.get(id);
    if (!recipe) return [];
    let out: Line[] = [
      ...recipe.rawMaterialReferences.map((l) => ({ sub: false, node: l.nodeId, q: new D(l.quantity), w: new D(l.wastePercentage) })),
      ...recipe.subAssemblyReferences.map((l) => ({ sub: true, node: l.nodeId, q: new D(l.quantity), w: zero })),
    ];
    const rule = ds.locationRules.find((r) => r.ownerType === type && r.ownerId === id && r.locationId === loc);
    for (const o of rule?.overrides ?? []) {
      if (o.action === 'remove') out = out.filter((l) => l.node !== o.nodeId);
      else if (o.action === 'replace') out = out.map((l) => (l.node === o.nodeId ? { ...l, node: o.replacementNodeId, q: o.quantity ? new D(o.quantity) : l.q, w: o.wastePercentage ? new D(o.wastePercentage) : l.w } : l));
      else if (o.action === 'adjust') out = out.map((l) => (l.node === o.nodeId ? { ...l, q: o.quantity ? new D(o.quantity) : l.q, w: o.wastePercentage ? new D(o.wastePercentage) : l.w } : l));
    }
    for (const o of rule?.overrides ?? []) if (o.action === 'add') out.push({ sub: assemblies.has(o.nodeId), node: o.nodeId, q: new D(o.quantity), w: assemblies.has(o.nodeId) ? zero : new D(o.wastePercentage) });
    return out;
  };
  const need = (l: Line) => (l.sub ? l.q : l.q.times(new D(1).plus(l.w.div(100))));
  const itemOf = (stock: string) => (assemblies.has(stock) ? `sub_assembly:${stock}` : fgBom.has(stock) ? `bom:${fgBom.get(stock)}` : `raw:${stock}`);

  const demand = new Map<string, Need[]>(); // `${loc}|${item}`
  const add = (loc: string, item: string, n: Need) => {
    if (!n.q.gt(0)) return;
    const k = `${loc}|${item}`;
    demand.set(k, [...(demand.get(k) ?? []), n]);
  };
  const receipts = new Map<string, D>();
  const open = ds.workOrders.filter((w) => w.status !== 'completed' && w.status !== 'cancelled');
  const covered = new Set(open.flatMap((w) => w.sourceOrderIds));
  for (const r of ds.reservations) {
    if (r.kind === 'order') {
      const q = new D(r.quantity).minus(r.fulfilledQuantity);
      if (covered.has(r.orderId) || !q.gt(0)) continue;
      add(r.locationId, itemOf(r.itemId), { type: 'order', id: r.orderId, q, needBy: asOf, created: '' });
    } else if (r.active) add(r.locationId, itemOf(r.itemId), { type: 'safety_stock', id: r.ownerId, q: new D(r.quantity), needBy: asOf, created: '' });
  }
  for (const w of open) {
    const needBy = w.dueDate ?? asOf;
    const cons = w.defaultConsumptionLocationId ?? w.productionLocationId;
    let Q = zero;
    let left = zero;
    for (const item of w.items) {
      const started = w.buildRuns.filter((r) => r.runType === 'production' && r.status !== 'reversed')
        .flatMap((r) => r.items).filter((x) => x.itemId === item.itemId).reduce((s, x) => s.plus(x.quantity), zero);
      const rest = D.max(new D(item.quantity).minus(started), 0);
      Q = Q.plus(item.quantity);
      left = left.plus(rest);
      if (cons !== null && rest.gt(0)) {
        for (const l of lines(item.ownerType, item.ownerId, cons)) {
          add(cons, l.sub ? `sub_assembly:${l.node}` : `raw:${l.node}`, { type: 'work_order', id: w.workOrderId, q: rest.times(need(l)), needBy, created: w.createdAt });
        }
      }
      const toComplete = D.max(new D(item.quantity).minus(item.completedQuantity), 0);
      const made = item.ownerType === 'bom' ? (boms.get(item.ownerId)?.variantId != null ? `bom:${item.ownerId}` : null) : `sub_assembly:${item.ownerId}`;
      if (w.productionLocationId !== null && made !== null && toComplete.gt(0)) {
        const k = `${w.productionLocationId}|${made}`;
        receipts.set(k, (receipts.get(k) ?? zero).plus(toComplete));
      }
    }
    for (const m of w.manualMaterials) {
      const loc = m.locationId ?? cons;
      if (loc === null) continue;
      add(loc, `raw:${m.variantId}`, { type: 'work_order', id: w.workOrderId, q: Q.gt(0) ? new D(m.quantity).times(left).div(Q) : new D(m.quantity), needBy, created: w.createdAt });
    }
  }

  const sortNeeds = (list: Need[]) => [...list].sort((a, b) => cmpText(a.needBy, b.needBy) || RANK[a.type]! - RANK[b.type]! || cmpText(a.created, b.created) || cmpText(a.id, b.id));
  /** required, allocated, net and the need-by of the first demand the supply does not reach (cumulative sums). */
  const settle = (list: Need[], supply: D) => {
    const sorted = sortNeeds(list);
    const required = sorted.reduce((s, n) => s.plus(n.q), zero);
    const allocated = D.min(required, supply);
    let running = zero;
    let needBy: string | null = null;
    for (const n of sorted) {
      running = running.plus(n.q);
      if (running.gt(supply)) { needBy = n.needBy; break; }
    }
    return { required, allocated, net: required.minus(allocated), needBy };
  };
  const peg = (list: Need[]) => {
    const g = new Map<string, { sourceType: string; sourceId: string; q: D; needBy: string }>();
    for (const n of list) {
      const k = `${n.type}\u0000${n.id}`;
      const e = g.get(k) ?? { sourceType: n.type, sourceId: n.id, q: zero, needBy: n.needBy };
      e.q = e.q.plus(n.q);
      if (n.needBy < e.needBy) e.needBy = n.needBy;
      g.set(k, e);
    }
    const all = [...g.values()].sort((a, b) => b.q.comparedTo(a.q) || cmpText(a.sourceType, b.sourceType) || cmpText(a.sourceId, b.sourceId));
    return { demands: all.slice(0, CAP).map((d) => ({ sourceType: d.sourceType, sourceId: d.sourceId, quantity: w6(d.q), needBy: d.needBy })), otherDemandCount: Math.max(0, all.length - CAP), all };
  };

  const locations = [...new Set([...demand.keys()].map((k) => k.split('|')[0]!))].sort(locCmp);
  const makes: any[] = [];
  const buys: any[] = [];
  const shortages: any[] = [];
  const billIds = [...ds.boms.map((b) => `bom:${b.bomId}`), ...ds.assemblyBills.map((a) => `sub_assembly:${a.assemblyId}`)];
  for (const loc of locations) {
    // Kahn: a bill is netted once every bill using it there is done. Only bills demanded there, and
    // what their recipes there reach, can ever be demanded: the others need no turn.
    const split = (id: string) => [id.startsWith('bom:') ? 'bom' : 'sub_assembly', id.slice(id.indexOf(':') + 1)] as const;
    const relevant = new Set(billIds.filter((id) => demand.has(`${loc}|${id}`)));
    for (const id of relevant) for (const l of lines(...split(id), loc)) if (l.sub && assemblies.has(l.node)) relevant.add(`sub_assembly:${l.node}`);
    const users = new Map<string, Set<string>>([...relevant].map((id) => [id, new Set()]));
    for (const id of relevant) for (const l of lines(...split(id), loc)) if (l.sub) users.get(`sub_assembly:${l.node}`)?.add(id);
    const done = new Set<string>();
    while (done.size < relevant.size) {
      const next = [...relevant].filter((id) => !done.has(id) && [...users.get(id)!].every((u) => done.has(u))).sort(cmpText)[0]!;
      done.add(next);
      const list = demand.get(`${loc}|${next}`) ?? [];
      if (list.length === 0) continue;
      const isBom = next.startsWith('bom:');
      const own = next.slice(next.indexOf(':') + 1);
      const shelfId = isBom ? boms.get(own)!.variantId : own;
      const onHand = shelfId === null ? zero : D.max(shelf.get(`${loc}|${shelfId}`) ?? zero, 0);
      const inbound = receipts.get(`${loc}|${next}`) ?? zero;
      const s = settle(list, onHand.plus(inbound));
      if (!s.net.gt(0)) continue;
      const q = s.net.ceil();
      const lead = (isBom ? boms.get(own)!.leadTimeDays : assemblies.get(own)!.leadTimeDays) ?? 0;
      const startBy = minusDays(s.needBy!, lead);
      const p = peg(list);
      makes.push({ itemType: isBom ? 'bom' : 'assembly_bill', itemId: own, variantId: isBom ? boms.get(own)!.variantId : null, locationId: loc,
        quantity: w6(q), needBy: s.needBy, startBy, late: startBy < asOf, demands: p.demands, otherDemandCount: p.otherDemandCount });
      for (const l of lines(isBom ? 'bom' : 'sub_assembly', own, loc)) {
        add(loc, l.sub ? `sub_assembly:${l.node}` : `raw:${l.node}`, { type: 'make', id: own, q: q.times(need(l)), needBy: startBy, created: '' });
      }
    }
    const raws = [...demand.keys()].filter((k) => k.startsWith(`${loc}|raw:`)).map((k) => k.slice(`${loc}|raw:`.length)).sort(cmpText);
    for (const v of raws) {
      const list = demand.get(`${loc}|raw:${v}`)!;
      const onHand = D.max(level.get(`${loc}|${v}`) ?? zero, 0);
      const s = settle(list, onHand);
      if (!s.net.gt(0)) continue;
      const m = materials.get(v);
      const essential = m ? !m.isNonEssentialMaterial : true;
      const p = peg(list);
      shortages.push({ variantId: v, locationId: loc, required: w6(s.required), onHand: w6(onHand), allocated: w6(s.allocated), net: w6(s.net), needBy: s.needBy,
        essential, demands: p.demands, otherDemandCount: p.otherDemandCount });
      const target = D.max(s.net, m?.minimumOrderQuantity ?? 0);
      const multiple = m?.orderMultiple ? new D(m.orderMultiple) : null;
      // Brute force: count multiples up until one reaches the target.
      let quantity: D;
      if (multiple) { let k = 0; while (multiple.times(k).lt(target)) k++; quantity = multiple.times(k); } else quantity = target.times(1e6).ceil().div(1e6);
      const orderBy = minusDays(s.needBy!, m?.leadTimeDays ?? 0);
      buys.push({ variantId: v, locationId: loc, quantity: w6(quantity), net: w6(s.net), needBy: s.needBy, orderBy, late: orderBy < asOf, essential });
    }
  }
  const rows = (key: string) => (a: any, b: any) => locCmp(a.locationId, b.locationId) || cmpText(a[key], b[key]);
  return { asOf, buySuggestions: buys.sort(rows('variantId')), makeSuggestions: makes.sort(rows('itemId')), shortages: shortages.sort(rows('variantId')) };
}
