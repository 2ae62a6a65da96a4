import { billLines, BomChecks, checkMaterial, checkRecipe, checkVariant, LocationRuleChecks } from './catalog-checks.ts';
import { addUnique, addUniqueId, newCheckContext, type BillLines, type CheckContext } from './check-context.ts';
import { CycleChecks } from './cycle-checks.ts';
import { DATASET_SHAPE } from './dataset-shape.ts';
import { isJsonNumber } from './exact-number.ts';
import type { Problems } from './problems.ts';
import { checkMemberName, normalize, normalizeField, refTo, type ArrayShape, type ObjectShape, type PathRef } from './shape.ts';
import { BillVersionChecks, PreassembledChecks, ReservationChecks, ResidualChecks } from './stock-checks.ts';
import type {
  Dataset, DatasetAssemblyBill, DatasetBillVersion, DatasetBom, DatasetLocationRule, DatasetMaterial, DatasetPreassembled,
  DatasetReservation, DatasetResidual, DatasetShop, DatasetVariant, DatasetWorkOrder,
} from './types.ts';
import { DATASET_FORMAT_VERSION } from './types.ts';
import { WorkOrderChecks } from './work-order-checks.ts';

// The one walk over a dataset that validates it: section by section in the order of the file
// format, each element normalised by its shape and then checked against what earlier sections
// left in the check context. The walk reads through a RawObject, so the same rules run on a
// parsed tree (validateDataset) and on a file streamed from disk (bomcore load).

/** What stands where a value was expected, when it is not read member by member. */
export interface Whole {
  whole: unknown;
}

/** A JSON object as the walk reads it: member names, members whole, arrays element by element. */
export interface RawObject {
  /** Member names, in JavaScript key order (as `for…in` lists a parsed object's). */
  keys(): Iterable<string>;
  /** A member given whole; undefined when absent. */
  value(key: string): unknown;
  /** A member that should be an array: its elements one by one, or whatever stands there instead. */
  list(key: string): { elements: Iterable<unknown> } | Whole;
  /** A member that should be an object, or whatever stands there instead. */
  object(key: string): RawObject | Whole;
}

export const isWhole = (value: RawObject | Whole | { elements: Iterable<unknown> }): value is Whole => 'whole' in value;

/** The section lists of the format, in file order (also the order they are checked and loaded in). */
export const PLATFORM_SECTIONS = ['locations', 'variants', 'orders'] as const;
export const ROOT_SECTIONS = [
  'materials', 'costFactors', 'assemblyBills', 'boms', 'locationRules', 'preassembled', 'residuals', 'reservations',
  'assignees', 'flows', 'tasks', 'workOrders', 'billVersions',
] as const;
export type SectionName = `platform.${(typeof PLATFORM_SECTIONS)[number]}` | (typeof ROOT_SECTIONS)[number];

export const PLATFORM_SHAPE = DATASET_SHAPE.fields['platform'] as ObjectShape;

/** The shape of a section's elements. */
export function elementShape(section: SectionName) {
  const [owner, key] = section.startsWith('platform.') ? [PLATFORM_SHAPE, section.slice('platform.'.length)] : [DATASET_SHAPE, section];
  return (owner.fields[key] as ArrayShape).of;
}

export interface CheckOutcome {
  /** The normalised dataset, when asked for and valid. */
  dataset: Dataset | null;
  /** The normalised shop (null when the root or the shop is malformed). */
  shop: DatasetShop | null;
  /** Elements per section. */
  counts: Map<SectionName, number>;
  /** cachedQuantity filled in for platform-linked materials that omit it: variantId → sum of the variant's levels. */
  cachedQuantityDefaults: Map<string, string>;
  /** [createdAt, workOrderId] of every work order, in file order. */
  workOrderCreatedAt: [string, string][];
}

export interface CheckOptions {
  /** Keep the normalised elements and return the dataset (in memory; not for a streamed file). */
  collect: boolean;
}

/** Per-section element handlers, fed in file order; `end` runs after the section's last element. */
interface SectionChecks {
  element(value: unknown, index: number): void;
  end?(): void;
}

function sectionChecks(ctx: CheckContext, outcome: CheckOutcome, options: CheckOptions): Record<SectionName, SectionChecks> {
  const p = ctx.problems;
  const ids = (kind: Parameters<typeof addUniqueId>[1], seen: Map<string, number>, idOf: (v: any) => unknown, pathOf: (i: number) => string, label: string): SectionChecks => ({
    element: (value, i) => addUniqueId(p, kind, seen, idOf(value), i, pathOf, label),
  });
  const firstIndex = (lines: BillLines) => lines.index;
  const pendingBills: [DatasetAssemblyBill, number][] = [];
  const cycles = new CycleChecks(ctx);
  const boms = new BomChecks(ctx);
  const rules = new LocationRuleChecks(ctx);
  const preassembled = new PreassembledChecks(ctx);
  const residuals = new ResidualChecks(ctx);
  const reservations = new ReservationChecks(ctx);
  const workOrders = new WorkOrderChecks(ctx);
  const billVersions = new BillVersionChecks(ctx);
  return {
    'platform.locations': ids('duplicate:locations', ctx.locations, (l) => l.id, (i) => `$.platform.locations[${i}].id`, 'location'),
    'platform.variants': {
      element: (value, i) => {
        const variant = value as DatasetVariant;
        addUniqueId(p, 'duplicate:variants', ctx.variants, variant.variantId, i, (k) => `$.platform.variants[${k}].variantId`, 'platform variant');
        checkVariant(ctx, variant, i);
      },
    },
    'platform.orders': ids('duplicate:orders', ctx.orders, (o) => o.orderId, (i) => `$.platform.orders[${i}].orderId`, 'order'),
    materials: {
      element: (value, i) => {
        const material = value as DatasetMaterial;
        addUniqueId(p, 'duplicate:materials', ctx.materials, material.variantId, i, (k) => `$.materials[${k}].variantId`, 'material');
        const omitted = material.origin === 'platform' && material.cachedQuantity === null;
        checkMaterial(ctx, material, i);
        if (omitted && material.origin === 'platform' && material.cachedQuantity !== null && !options.collect) {
          outcome.cachedQuantityDefaults.set(material.variantId, material.cachedQuantity);
        }
      },
      end: () => {
        ctx.variantLevelSums = null;
      },
    },
    costFactors: ids('duplicate:costFactors', ctx.costFactors, (c) => c.costFactorId, (i) => `$.costFactors[${i}].costFactorId`, 'cost factor'),
    assemblyBills: {
      element: (value, i) => {
        const bill = value as DatasetAssemblyBill;
        addUnique(p, 'duplicate:assemblyBills', ctx.assemblyBills, bill.assemblyId, i, (k) => `$.assemblyBills[${k}].assemblyId`, 'assembly bill',
          (k) => billLines(bill, k), firstIndex);
        // Their lines may name bills further down the list: checked once all ids are known.
        pendingBills.push([bill, i]);
      },
      end: () => {
        for (const [bill, i] of pendingBills) checkRecipe(ctx, 'catalog:assemblyBills', bill, `$.assemblyBills[${i}]`);
        cycles.setBills(pendingBills);
        pendingBills.length = 0;
      },
    },
    boms: {
      element: (value, i) => {
        const bom = value as DatasetBom;
        addUnique(p, 'duplicate:boms', ctx.boms, bom.bomId, i, (k) => `$.boms[${k}].bomId`, 'BOM', (k) => billLines(bom, k), firstIndex);
        boms.check(bom, i);
      },
    },
    locationRules: {
      element: (value, i) => {
        rules.check(value as DatasetLocationRule, i);
        cycles.addRule(value as DatasetLocationRule, i);
      },
      end: () => cycles.finish(),
    },
    preassembled: { element: (value, i) => preassembled.check(value as DatasetPreassembled, i) },
    residuals: { element: (value, i) => residuals.check(value as DatasetResidual, i) },
    reservations: { element: (value, i) => reservations.check(value as DatasetReservation, i) },
    assignees: ids('duplicate:assignees', ctx.assignees, (a) => a.assigneeId, (i) => `$.assignees[${i}].assigneeId`, 'assignee'),
    flows: ids('duplicate:flows', ctx.flows, (f) => f.flowId, (i) => `$.flows[${i}].flowId`, 'flow'),
    tasks: ids('duplicate:tasks', ctx.tasks, (t) => t.taskId, (i) => `$.tasks[${i}].taskId`, 'task'),
    workOrders: {
      element: (value, i) => workOrders.check(value as DatasetWorkOrder, i),
      end: () => outcome.workOrderCreatedAt.push(...workOrders.createdAt),
    },
    billVersions: { element: (value, i) => billVersions.check(value as DatasetBillVersion, i) },
  };
}

/**
 * Validates a dataset read through `root`, reporting every problem into `problems` (in the
 * documented order). Memory: the check context's indexes, plus one element at a time.
 */
export function checkDataset(root: RawObject | Whole, problems: Problems, options: CheckOptions): CheckOutcome {
  const outcome: CheckOutcome = { dataset: null, shop: null, counts: new Map(), cachedQuantityDefaults: new Map(), workOrderCreatedAt: [] };
  const shapeErrors = problems.sink('shape');
  if (isWhole(root)) {
    normalize(DATASET_SHAPE, root.whole, null, null, shapeErrors);
    return outcome;
  }
  const ctx = newCheckContext(problems);
  const checks = sectionChecks(ctx, outcome, options);
  const fields = DATASET_SHAPE.fields;
  const collected: Record<string, unknown> = {};

  for (const key of root.keys()) checkMemberName(DATASET_SHAPE, key, null, shapeErrors);
  const formatVersion = normalizeField(fields['formatVersion']!, 'formatVersion', root.value('formatVersion'), null, shapeErrors);
  collected['formatVersion'] = formatVersion;
  const shop = normalizeField(fields['shop']!, 'shop', root.value('shop'), null, shapeErrors) as DatasetShop | null;
  collected['shop'] = shop;
  outcome.shop = shop;
  ctx.allowNegativeInventory = shop?.settings?.allowNegativeInventory === true;

  const walkList = (owner: RawObject | null, ownerShape: ObjectShape, ownerRef: PathRef | null, key: string, section: SectionName): unknown[] | null => {
    const listShape = ownerShape.fields[key] as ArrayShape;
    const handler = checks[section];
    const member = owner ? owner.list(key) : { whole: undefined };
    let count = 0;
    let list: unknown[] | null;
    if (isWhole(member)) {
      // Absent or null (an empty list), or not an array at all (a problem).
      list = normalizeField(listShape, key, member.whole, ownerRef, shapeErrors) as unknown[] | null;
    } else {
      const here = refTo(ownerRef, key);
      list = options.collect ? [] : null;
      for (const raw of member.elements) {
        const element = normalize(listShape.of, raw, here, count, shapeErrors);
        if (element !== null) handler.element(element, count);
        list?.push(element);
        count++;
      }
    }
    handler.end?.();
    outcome.counts.set(section, count);
    return list;
  };

  // platform: an object of three lists.
  const platformMember = root.object('platform');
  const platformRef = refTo(null, 'platform');
  let platform: Record<string, unknown> | null = null;
  if (isWhole(platformMember) && platformMember.whole !== undefined && platformMember.whole !== null) {
    normalize(PLATFORM_SHAPE, platformMember.whole, null, 'platform', shapeErrors); // reports what stands there instead
    for (const key of PLATFORM_SECTIONS) walkList(null, PLATFORM_SHAPE, platformRef, key, `platform.${key}`);
  } else {
    const object = isWhole(platformMember) ? null : platformMember;
    if (object) for (const key of object.keys()) checkMemberName(PLATFORM_SHAPE, key, platformRef, shapeErrors);
    platform = {};
    for (const key of PLATFORM_SECTIONS) platform[key] = walkList(object, PLATFORM_SHAPE, platformRef, key, `platform.${key}`) ?? [];
  }
  collected['platform'] = platform;
  for (const key of ROOT_SECTIONS) collected[key] = walkList(root, DATASET_SHAPE, null, key, key) ?? [];

  if (formatVersion !== null && formatVersion !== DATASET_FORMAT_VERSION) {
    problems.add('formatVersion', '$.formatVersion', `unsupported formatVersion ${formatVersion as number} (expected ${DATASET_FORMAT_VERSION})`);
  }
  if (options.collect && problems.count === 0) outcome.dataset = collected as unknown as Dataset;
  return outcome;
}

/** Reads a parsed JSON value (numbers as JS numbers or exact numbers) through the walk. */
export function treeRoot(value: unknown): RawObject | Whole {
  return isPlainObject(value) ? treeObject(value) : { whole: value };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isJsonNumber(value);
}

function treeObject(raw: Record<string, unknown>): RawObject {
  const value = (key: string) => (Object.hasOwn(raw, key) ? raw[key] : undefined);
  return {
    *keys() {
      for (const key in raw) if (Object.hasOwn(raw, key)) yield key;
    },
    value,
    list: (key) => {
      const member = value(key);
      return Array.isArray(member) ? { elements: member } : { whole: member };
    },
    object: (key) => {
      const member = value(key);
      return isPlainObject(member) ? treeObject(member) : { whole: member };
    },
  };
}
