import type { Progress } from './generate-catalog.ts';
import { loop, PlatformIds } from './generate-catalog.ts';
import type { Prng } from './prng.ts';
import type {
  BillOwnerType, DatasetAssemblyBill, DatasetBom, DatasetLocation, DatasetLocationOverride, DatasetLocationRule, DatasetOrder,
  DatasetPreassembled, DatasetRecipe, DatasetReservation, DatasetResidual, DatasetVariant,
} from './types.ts';
import { LOCATION_RULE_ACTIONS } from './types.ts';

// Synthetic location rules, shelves, residuals, orders and reservations.

interface Owner {
  ownerType: BillOwnerType;
  ownerId: string;
  recipe: DatasetRecipe;
  /** Assembly bills this owner may name without closing a loop: indexes below this. */
  nestableBills: number;
}

/** Owners: about one BOM in ten and one assembly bill in twenty; each gets one rule. */
export function generateLocationRules(rng: Prng, boms: DatasetBom[], bills: DatasetAssemblyBill[], layers: number[],
  materialIds: string[], locations: DatasetLocation[], progress: Progress): DatasetLocationRule[] {
  const layerStart = new Map<number, number>();
  layers.forEach((layer, i) => { if (!layerStart.has(layer)) layerStart.set(layer, i); });
  const owners: Owner[] = [
    ...boms.filter(() => rng.chance(0.1)).map((bom) => ({ ownerType: 'bom' as const, ownerId: bom.bomId, recipe: bom, nestableBills: bills.length })),
    ...bills.flatMap((bill, i) => (rng.chance(0.05) ? [{
      ownerType: 'sub_assembly' as const, ownerId: bill.assemblyId, recipe: bill, nestableBills: layerStart.get(layers[i] ?? 1) ?? 0,
    }] : [])),
  ];
  const rules: DatasetLocationRule[] = [];
  let actionCursor = 0;
  loop(owners.length, 'locationRules', progress, (i) => {
    const owner = owners[i] as Owner;
    const overrides: DatasetLocationOverride[] = [];
    const targeted = new Set<string>();
    const overrideCount = rng.int(1, 3);
    for (let k = 0; k < overrideCount; k++) {
      // Rotating the first choice puts every action in any dataset with a handful of rules.
      const action = LOCATION_RULE_ACTIONS[actionCursor++ % LOCATION_RULE_ACTIONS.length] ?? 'add';
      const override = makeOverride(rng, action, owner, targeted, materialIds, bills) ?? makeOverride(rng, 'add', owner, targeted, materialIds, bills);
      if (override) {
        targeted.add(override.nodeId);
        overrides.push(override);
      }
    }
    if (overrides.length > 0) rules.push({ ownerType: owner.ownerType, ownerId: owner.ownerId, locationId: rng.pick(locations).id, overrides });
  }, 5_000);
  return rules;
}

function makeOverride(rng: Prng, action: DatasetLocationOverride['action'], owner: Owner, targeted: Set<string>,
  materialIds: string[], bills: DatasetAssemblyBill[]): DatasetLocationOverride | null {
  const raw = owner.recipe.rawMaterialReferences.filter((line) => !targeted.has(line.nodeId));
  const subs = owner.recipe.subAssemblyReferences.filter((line) => !targeted.has(line.nodeId));
  const lineIds = new Set([...owner.recipe.rawMaterialReferences, ...owner.recipe.subAssemblyReferences].map((line) => line.nodeId));
  const freshMaterial = () => findFresh(rng, () => rng.pick(materialIds), lineIds, targeted, materialIds.length);
  const freshBill = () => (owner.nestableBills === 0 ? null
    : findFresh(rng, () => (bills[rng.int(0, owner.nestableBills - 1)] as DatasetAssemblyBill).assemblyId, lineIds, targeted, owner.nestableBills));

  if (action === 'add') {
    const nodeId = rng.chance(0.3) ? freshBill() : freshMaterial();
    if (!nodeId) return null;
    const isMaterial = !nodeId.startsWith('ASM-');
    return { action, nodeId, quantity: rng.decimal(0.01, 3, 2), wastePercentage: isMaterial && rng.chance(0.5) ? rng.decimal(1, 15, 1) : '0' };
  }
  const useSub = subs.length > 0 && (raw.length === 0 || rng.chance(0.3));
  const line = useSub ? rng.pick(subs) : raw.length > 0 ? rng.pick(raw) : null;
  if (!line) return null;
  if (action === 'remove') return { action, nodeId: line.nodeId };
  if (action === 'adjust') {
    return useSub || rng.chance(0.5)
      ? { action, nodeId: line.nodeId, quantity: rng.decimal(0.01, 4, 2), wastePercentage: null }
      : { action, nodeId: line.nodeId, quantity: rng.chance(0.5) ? rng.decimal(0.01, 4, 2) : null, wastePercentage: rng.decimal(0, 30, 1) };
  }
  const replacementNodeId = useSub ? freshBill() : freshMaterial();
  if (!replacementNodeId) return null;
  return {
    action, nodeId: line.nodeId, replacementNodeId,
    quantity: rng.chance(0.5) ? rng.decimal(0.01, 4, 2) : null,
    wastePercentage: !useSub && rng.chance(0.3) ? rng.decimal(0, 10, 1) : null,
  };
}

/** A random id that is neither a line of the owner nor already targeted, or null after a few tries. */
function findFresh(rng: Prng, draw: () => string, lineIds: Set<string>, targeted: Set<string>, poolSize: number): string | null {
  if (poolSize === 0) return null;
  for (let attempt = 0; attempt < 8; attempt++) {
    const id = draw();
    if (!lineIds.has(id) && !targeted.has(id)) return id;
  }
  return null;
}

/** Shelves for about a fifth of the finished goods and assembly bills, at one or two locations. */
export function generatePreassembled(rng: Prng, boms: DatasetBom[], bills: DatasetAssemblyBill[], locations: DatasetLocation[]): DatasetPreassembled[] {
  const itemIds = [...boms.flatMap((bom) => (bom.variantId ? [bom.variantId] : [])), ...bills.map((bill) => bill.assemblyId)];
  return itemIds.filter(() => rng.chance(0.2)).flatMap((itemId) =>
    rng.pickDistinct(locations, rng.int(1, 2)).map((location) => ({ itemId, locationId: location.id, quantity: String(rng.int(0, 25)) })));
}

export function generateResiduals(rng: Prng, stockItemIds: string[], locations: DatasetLocation[]): DatasetResidual[] {
  const residuals: DatasetResidual[] = [];
  for (const itemId of stockItemIds) {
    if (!rng.chance(0.03)) continue;
    const locationId = rng.pick(locations).id;
    residuals.push({ itemId, locationId, kind: 'buildRun', quantity: rng.decimal(0.001, 0.999, 3) });
    if (rng.chance(0.3)) residuals.push({ itemId, locationId, kind: 'safetyStock', quantity: rng.decimal(0.01, 0.99, 2) });
  }
  return residuals;
}

const MERCH = ['Gift card', 'Matchbox', 'Wick trimmer', 'Candle snuffer', 'Tote bag'];

/** Platform products sold beside the candles that have no BOM (non-BOM order lines). */
export function generateMerchVariants(rng: Prng, ids: PlatformIds, locations: DatasetLocation[]): DatasetVariant[] {
  return MERCH.map((productName, i) => ({
    ...ids.next(), productName, variantName: null, sku: `MERCH-${i + 1}`, vendor: 'Lumen Goods', price: rng.decimal(3, 30, 2), cost: null,
    imageUrl: null, productType: 'Accessory', productCategory: null, weightValue: null, weightUnitId: null,
    levels: locations.map((location) => ({ locationId: location.id, available: String(rng.int(0, 100)) })),
  }));
}

/** Orders mixing BOM lines (finished goods) and non-BOM lines. */
export function generateOrders(rng: Prng, count: number, finishedGoods: DatasetVariant[], others: DatasetVariant[], progress: Progress): DatasetOrder[] {
  const orders: DatasetOrder[] = [];
  loop(count, 'orders', progress, (i) => {
    const chosen = new Set<DatasetVariant>();
    const lineCount = rng.int(1, 4);
    for (let k = 0; k < lineCount; k++) {
      const pool = finishedGoods.length > 0 && (others.length === 0 || rng.chance(0.65)) ? finishedGoods : others;
      if (pool.length > 0) chosen.add(rng.pick(pool));
    }
    orders.push({
      orderId: String(5_000_001 + i),
      name: `#${1001 + i}`,
      lineItems: [...chosen].map((variant) => ({
        variantId: variant.variantId, productId: variant.productId, sku: variant.sku,
        title: variant.variantName ? `${variant.productName} - ${variant.variantName}` : variant.productName, quantity: String(rng.int(1, 5)),
      })),
    });
  });
  return orders;
}

/** Order holds on about half the orders' first lines; safety stock held by some bills. */
export function generateReservations(rng: Prng, orders: DatasetOrder[], boms: DatasetBom[], bills: DatasetAssemblyBill[],
  locations: DatasetLocation[]): DatasetReservation[] {
  const reservations: DatasetReservation[] = [];
  for (const order of orders) {
    const line = order.lineItems[0];
    if (!line || !rng.chance(0.5)) continue;
    const quantity = Number(line.quantity);
    reservations.push({
      kind: 'order', itemId: line.variantId, locationId: rng.pick(locations).id, orderId: order.orderId,
      quantity: line.quantity, fulfilledQuantity: String(rng.int(0, quantity)),
    });
  }
  const owners: { ownerType: BillOwnerType; ownerId: string; recipe: DatasetRecipe; selfId: string | null }[] = [
    ...boms.map((bom) => ({ ownerType: 'bom' as const, ownerId: bom.bomId, recipe: bom, selfId: bom.variantId })),
    ...bills.map((bill) => ({ ownerType: 'sub_assembly' as const, ownerId: bill.assemblyId, recipe: bill, selfId: bill.assemblyId })),
  ];
  for (const owner of owners) {
    if (!rng.chance(0.05)) continue;
    const itemId = owner.recipe.rawMaterialReferences[0]?.nodeId ?? owner.selfId;
    if (!itemId) continue;
    reservations.push({
      kind: 'safetyStock', itemId, locationId: rng.pick(locations).id, ownerType: owner.ownerType, ownerId: owner.ownerId,
      quantity: rng.decimal(1, 50, 1), active: rng.chance(0.8),
    });
  }
  return reservations;
}
