import type {
  BillOwnerType, Dataset, DatasetAssemblyBill, DatasetBom, DatasetError, DatasetMaterial, DatasetRecipe, DatasetVariant,
} from './types.ts';

// Shared state of the cross-record checks: id indexes built once, and small helpers that
// report a problem at a JSONPath.
//
// The checks run on the normalised but possibly partial dataset: an element or field that
// failed its shape check is null. Every check therefore skips nulls rather than trusting types.

export interface CheckContext {
  readonly dataset: Dataset;
  readonly errors: DatasetError[];
  readonly locations: Set<string>;
  readonly variants: Map<string, DatasetVariant>;
  readonly orders: Set<string>;
  readonly materials: Map<string, DatasetMaterial>;
  readonly costFactors: Set<string>;
  readonly assemblyBills: Map<string, Indexed<DatasetAssemblyBill>>;
  readonly boms: Map<string, Indexed<DatasetBom>>;
  readonly assignees: Set<string>;
  readonly flows: Set<string>;
  readonly tasks: Set<string>;
}

export interface Indexed<T> {
  item: T;
  index: number;
}

/** Elements of a possibly partial array, with their original index (failed elements skipped). */
export function* present<T>(list: readonly T[] | null | undefined): Generator<[T, number]> {
  if (!list) return;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item !== null && item !== undefined) yield [item, i];
  }
}

/**
 * Indexes `list` by the id that `idOf` reads, reporting each repeated id at `pathOf(index)`.
 * `label` names the kind of id in messages ("material", "BOM").
 */
export function indexUnique<T>(
  errors: DatasetError[],
  list: readonly T[] | null | undefined,
  idOf: (item: T) => string | null | undefined,
  pathOf: (index: number) => string,
  label: string,
): Map<string, Indexed<T>> {
  const seen = new Map<string, Indexed<T>>();
  for (const [item, index] of present(list)) {
    const id = idOf(item);
    if (typeof id !== 'string') continue;
    const first = seen.get(id);
    if (first) errors.push({ path: pathOf(index), message: `duplicate ${label} "${id}" (first at ${pathOf(first.index)})` });
    else seen.set(id, { item, index });
  }
  return seen;
}

export function buildContext(dataset: Dataset, errors: DatasetError[]): CheckContext {
  const platform = dataset.platform;
  const itemsOf = <T>(index: Map<string, Indexed<T>>) => new Map([...index].map(([id, entry]) => [id, entry.item]));
  const idsOf = (index: Map<string, unknown>) => new Set(index.keys());
  return {
    dataset,
    errors,
    locations: idsOf(indexUnique(errors, platform?.locations, (l) => l.id, (i) => `$.platform.locations[${i}].id`, 'location')),
    variants: itemsOf(indexUnique(errors, platform?.variants, (v) => v.variantId, (i) => `$.platform.variants[${i}].variantId`, 'platform variant')),
    orders: idsOf(indexUnique(errors, platform?.orders, (o) => o.orderId, (i) => `$.platform.orders[${i}].orderId`, 'order')),
    materials: itemsOf(indexUnique(errors, dataset.materials, (m) => m.variantId, (i) => `$.materials[${i}].variantId`, 'material')),
    costFactors: idsOf(indexUnique(errors, dataset.costFactors, (c) => c.costFactorId, (i) => `$.costFactors[${i}].costFactorId`, 'cost factor')),
    assemblyBills: indexUnique(errors, dataset.assemblyBills, (a) => a.assemblyId, (i) => `$.assemblyBills[${i}].assemblyId`, 'assembly bill'),
    boms: indexUnique(errors, dataset.boms, (b) => b.bomId, (i) => `$.boms[${i}].bomId`, 'BOM'),
    assignees: idsOf(indexUnique(errors, dataset.assignees, (a) => a.assigneeId, (i) => `$.assignees[${i}].assigneeId`, 'assignee')),
    flows: idsOf(indexUnique(errors, dataset.flows, (f) => f.flowId, (i) => `$.flows[${i}].flowId`, 'flow')),
    tasks: idsOf(indexUnique(errors, dataset.tasks, (t) => t.taskId, (i) => `$.tasks[${i}].taskId`, 'task')),
  };
}

export function report(ctx: CheckContext, path: string, message: string): void {
  ctx.errors.push({ path, message });
}

/** Reports `unknown <label> "<id>"` when a non-null id is not among `known`. */
export function expectKnown(ctx: CheckContext, path: string, id: string | null | undefined, known: { has(id: string): boolean }, label: string): void {
  if (typeof id === 'string' && !known.has(id)) report(ctx, path, `unknown ${label} "${id}"`);
}

export function expectLocation(ctx: CheckContext, path: string, locationId: string | null | undefined): void {
  expectKnown(ctx, path, locationId, ctx.locations, 'location');
}

/** The recipe of a bill owner, or undefined (after reporting) when the owner does not exist. */
export function resolveOwner(ctx: CheckContext, path: string, ownerType: BillOwnerType | null, ownerId: string | null): DatasetRecipe | undefined {
  if (typeof ownerId !== 'string' || ownerType === null) return undefined;
  const owner = ownerType === 'bom' ? ctx.boms.get(ownerId) : ctx.assemblyBills.get(ownerId);
  if (!owner) report(ctx, path, `unknown ${ownerType === 'bom' ? 'BOM' : 'assembly bill'} "${ownerId}"`);
  return owner?.item;
}

/** A stock item: a material, a platform variant (finished good) or an assembly bill. */
export function isStockItem(ctx: CheckContext, itemId: string): boolean {
  return ctx.materials.has(itemId) || ctx.variants.has(itemId) || ctx.assemblyBills.has(itemId);
}

/** Reports every repeated key of a composite identity (e.g. item × location) within one list. */
export function expectUniqueKeys<T>(ctx: CheckContext, list: readonly T[] | null | undefined, keyOf: (item: T) => (string | null)[],
  pathOf: (index: number) => string, describeKey: (item: T) => string): void {
  const seen = new Map<string, number>();
  for (const [item, index] of present(list)) {
    const parts = keyOf(item);
    if (parts.some((part) => part === null || part === undefined)) continue;
    const key = JSON.stringify(parts);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else report(ctx, pathOf(index), `duplicate ${describeKey(item)} (first at ${pathOf(first)})`);
  }
}
