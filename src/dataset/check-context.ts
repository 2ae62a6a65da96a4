import type { ProblemKind, Problems } from './problems.ts';
import type { BillOwnerType } from './types.ts';

// Shared state of the cross-record checks. A dataset is checked one section at a time, in the
// order of the file format (each section refers only to sections before it, or to itself), so a
// check runs as soon as its record has been read. What later sections need of earlier ones is
// kept as compact indexes — ids and the few facts the rules look up — never whole records.
//
// The checks run on normalised but possibly partial records: an element or field that failed
// its shape check is null. Every check therefore skips nulls rather than trusting types.

/** The lines of a bill that location rules can target, by node id. */
export interface BillLines {
  /** Index of the bill's first occurrence in its list. */
  index: number;
  materials: string[];
  assemblies: string[];
}

export interface CheckContext {
  readonly problems: Problems;
  allowNegativeInventory: boolean;
  /** id → index of its first occurrence (so a duplicate can say where the first one is). */
  readonly locations: Map<string, number>;
  readonly variants: Map<string, number>;
  /** Sum of each platform variant's levels (exact decimal text); dropped once materials are checked. */
  variantLevelSums: Map<string, string> | null;
  readonly orders: Map<string, number>;
  readonly materials: Map<string, number>;
  readonly costFactors: Map<string, number>;
  readonly assemblyBills: Map<string, BillLines>;
  readonly boms: Map<string, BillLines>;
  readonly assignees: Map<string, number>;
  readonly flows: Map<string, number>;
  readonly tasks: Map<string, number>;
}

export function newCheckContext(problems: Problems): CheckContext {
  return {
    problems,
    allowNegativeInventory: false,
    locations: new Map(),
    variants: new Map(),
    variantLevelSums: new Map(),
    orders: new Map(),
    materials: new Map(),
    costFactors: new Map(),
    assemblyBills: new Map(),
    boms: new Map(),
    assignees: new Map(),
    flows: new Map(),
    tasks: new Map(),
  };
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
 * Adds `id`, read from the element at `index` of its list, to `seen` (as `value(index)`); a
 * repeated id is reported at `pathOf(index)`, naming where the first one is. `label` names the
 * kind of id in messages ("material", "BOM"). Returns whether the id was new.
 */
export function addUnique<V>(problems: Problems, kind: ProblemKind, seen: Map<string, V>, id: unknown, index: number,
  pathOf: (index: number) => string, label: string, value: (index: number) => V, firstIndex: (value: V) => number): boolean {
  if (typeof id !== 'string') return false;
  const first = seen.get(id);
  if (first !== undefined) {
    problems.add(kind, pathOf(index), `duplicate ${label} "${id}" (first at ${pathOf(firstIndex(first))})`);
    return false;
  }
  seen.set(id, value(index));
  return true;
}

const self = (index: number) => index;

/** {@link addUnique} for an index of id → first index. */
export function addUniqueId(problems: Problems, kind: ProblemKind, seen: Map<string, number>, id: unknown, index: number,
  pathOf: (index: number) => string, label: string): boolean {
  return addUnique(problems, kind, seen, id, index, pathOf, label, self, self);
}

/** Reports `unknown <label> "<id>"` when a non-null id is not among `known`. */
export function expectKnown(ctx: CheckContext, kind: ProblemKind, path: string, id: string | null | undefined,
  known: { has(id: string): boolean }, label: string): void {
  if (typeof id === 'string' && !known.has(id)) ctx.problems.add(kind, path, `unknown ${label} "${id}"`);
}

export function expectLocation(ctx: CheckContext, kind: ProblemKind, path: string, locationId: string | null | undefined): void {
  expectKnown(ctx, kind, path, locationId, ctx.locations, 'location');
}

/** The lines of a bill owner, or undefined (after reporting) when the owner does not exist. */
export function resolveOwner(ctx: CheckContext, kind: ProblemKind, path: string, ownerType: BillOwnerType | null,
  ownerId: string | null): BillLines | undefined {
  if (typeof ownerId !== 'string' || ownerType === null) return undefined;
  const owner = ownerType === 'bom' ? ctx.boms.get(ownerId) : ctx.assemblyBills.get(ownerId);
  if (!owner) ctx.problems.add(kind, path, `unknown ${ownerType === 'bom' ? 'BOM' : 'assembly bill'} "${ownerId}"`);
  return owner;
}

/** A stock item: a material, a platform variant (finished good) or an assembly bill. */
export function isStockItem(ctx: CheckContext, itemId: string): boolean {
  return ctx.materials.has(itemId) || ctx.variants.has(itemId) || ctx.assemblyBills.has(itemId);
}

/**
 * Repeated composite identities (e.g. item × location) within one list, fed one element at a
 * time: {@link add} reports an element whose key was seen before.
 */
export class UniqueKeys<T> {
  private readonly seen = new Map<string, number>();
  private readonly problems: Problems;
  private readonly kind: ProblemKind;
  private readonly keyOf: (item: T) => (string | null)[];
  private readonly pathOf: (index: number) => string;
  private readonly describeKey: (item: T) => string;

  constructor(problems: Problems, kind: ProblemKind, keyOf: (item: T) => (string | null)[], pathOf: (index: number) => string,
    describeKey: (item: T) => string) {
    this.problems = problems;
    this.kind = kind;
    this.keyOf = keyOf;
    this.pathOf = pathOf;
    this.describeKey = describeKey;
  }

  add(item: T, index: number): void {
    const parts = this.keyOf(item);
    if (parts.some((part) => part === null || part === undefined)) return;
    const key = parts.length === 1 ? parts[0]! : JSON.stringify(parts);
    const first = this.seen.get(key);
    if (first === undefined) this.seen.set(key, index);
    else this.problems.add(this.kind, this.pathOf(index), `duplicate ${this.describeKey(item)} (first at ${this.pathOf(first)})`);
  }

  /** Checks a whole (small) list. */
  static check<T>(problems: Problems, kind: ProblemKind, list: readonly T[] | null | undefined, keyOf: (item: T) => (string | null)[],
    pathOf: (index: number) => string, describeKey: (item: T) => string): void {
    const keys = new UniqueKeys(problems, kind, keyOf, pathOf, describeKey);
    for (const [item, index] of present(list)) keys.add(item, index);
  }
}
