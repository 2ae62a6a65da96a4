import type { Decimal } from 'decimal.js';
import type {
  ArrayShape, BooleanShape, DecimalCheck, DecimalShape, EnumShape, IntegerShape, ObjectShape, Shape, StringShape, UnionShape,
} from './shape.ts';
import {
  BILL_OWNER_TYPES, BILL_VERSION_STATES, BOM_STATUSES, BUILD_RUN_STATUSES, BUILD_RUN_TYPES, COST_FACTOR_KINDS,
  DEFAULT_SHOP_PLAN, QC_DECISIONS, RESIDUAL_KINDS, SHOP_PLANS, STOREFRONT_STOCK_MODES, REWORK_ITEM_STATUSES, WORK_ORDER_PRIORITIES, WORK_ORDER_SOURCE_TYPES, WORK_ORDER_STATUSES,
} from './types.ts';
import { MAX_LEAD_TIME_DAYS, STRING_LIMITS, textLength, unstorableText, type StringKind } from '../kernel/limits.ts';

// The field-level description of the dataset format (docs/datasets.md). Key order here is the canonical order of the file.

const opt = <S extends Shape>(shape: S): S => ({ ...shape, optional: true });
/**
 * Text PostgreSQL can store (no NUL, no lone surrogate) within its kind's maximum (src/kernel/limits.ts):
 * the same bounds as the REST bodies and GraphQL arguments that write these fields.
 */
const bounded = (kind: StringKind) => (value: string): string | null => {
  const unstorable = unstorableText(value);
  if (unstorable) return unstorable;
  const length = textLength(value);
  return length > STRING_LIMITS[kind] ? `must be at most ${STRING_LIMITS[kind]} characters, got ${length}` : null;
};
const text = (kind: StringKind = 'text'): StringShape => ({ type: 'string', optional: false, nonEmpty: false, check: bounded(kind) });
const id = (kind: StringKind = 'id'): StringShape => ({ type: 'string', optional: false, nonEmpty: true, check: bounded(kind) });
const pattern = (regex: RegExp, patternMessage: string): StringShape =>
  ({ type: 'string', optional: false, nonEmpty: true, pattern: regex, patternMessage, check: bounded('id') });
const dec = (check?: DecimalCheck): DecimalShape =>
  check ? { type: 'decimal', optional: false, default: null, check } : { type: 'decimal', optional: false, default: null };
const decDefault = (value: string, check?: DecimalCheck): DecimalShape => ({ ...dec(check), optional: true, default: value });
const int = (min: number): IntegerShape => ({ type: 'integer', optional: false, min });
const bool = (value: boolean): BooleanShape => ({ type: 'boolean', optional: true, default: value });
const oneOf = (values: readonly string[]): EnumShape => ({ type: 'enum', optional: false, values });
const list = (of: Shape): ArrayShape => ({ type: 'array', optional: true, of });
const obj = (fields: Record<string, Shape>, extra: Partial<ObjectShape> = {}): ObjectShape =>
  ({ type: 'object', optional: false, fields, ...extra });

const range = (ok: (d: Decimal) => boolean, message: string): DecimalCheck =>
  (d) => (ok(d) ? null : `${message}, got ${d.toFixed()}`);
const POSITIVE = range((d) => d.gt(0), 'must be greater than 0');
const NON_NEGATIVE = range((d) => d.gte(0), 'must be at least 0');
const FRACTION = range((d) => d.gte(0) && d.lt(1), 'must be at least 0 and less than 1');
const WASTE = range((d) => d.gte(0) && d.lt(1000), 'must be at least 0 and less than 1000');
const WHOLE = range((d) => d.isInteger(), 'must be a whole number');
const POSITIVE_WHOLE = range((d) => d.isInteger() && d.gt(0), 'must be a whole number greater than 0');

const numericId = () => pattern(/^\d+$/, 'must be a bare numeric id');
const TIMESTAMP: StringShape = {
  ...pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be an ISO 8601 UTC timestamp with milliseconds (2026-11-01T09:00:00.000Z)'),
  check: (s) => (isRealInstant(s) ? null : `is not a real date and time: ${s}`),
};
/** When a catalogue row was archived; left out of written files while null. */
const ARCHIVED_AT: StringShape = { ...TIMESTAMP, optional: true, omitWhenNull: true };
/** Planning fields (docs/planning.md): left out of a file while they hold their default. */
const LEAD_TIME_DAYS: IntegerShape = { type: 'integer', optional: true, omitWhenNull: true, min: 0, max: MAX_LEAD_TIME_DAYS };
const PLANNING_MATERIAL_FIELDS = {
  leadTimeDays: LEAD_TIME_DAYS,
  minimumOrderQuantity: { ...opt(dec(NON_NEGATIVE)), omitWhenNull: true },
  orderMultiple: { ...opt(dec(POSITIVE)), omitWhenNull: true },
};
const DATE: StringShape = {
  ...pattern(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  check: (s) => (isRealInstant(`${s}T00:00:00.000Z`) ? null : `is not a real date: ${s}`),
};

function isRealInstant(iso: string): boolean {
  const time = Date.parse(iso);
  return !Number.isNaN(time) && new Date(time).toISOString() === iso;
}

// ---------- shop and platform ----------

const SHOP = obj({
  id: id(),
  name: text('name'),
  plan: { ...oneOf(SHOP_PLANS), optional: true, default: DEFAULT_SHOP_PLAN },
  settings: opt(obj({ allowNegativeInventory: bool(false), materialRequirementsMetafield: bool(false) })),
});

const levelShape = (check: DecimalCheck | undefined) => obj({ locationId: numericId(), available: dec(check) });

const VARIANT = obj({
  variantId: numericId(),
  productId: numericId(),
  inventoryItemId: numericId(),
  productName: text('name'),
  variantName: opt(text('name')),
  sku: opt(text('label')),
  vendor: opt(text('label')),
  price: opt(dec(NON_NEGATIVE)),
  cost: opt(dec(NON_NEGATIVE)),
  imageUrl: opt(text('url')),
  productType: opt(text('label')),
  productCategory: opt(text('label')),
  weightValue: opt(dec(NON_NEGATIVE)),
  weightUnitId: opt(text('label')),
  // The platform counts whole units.
  levels: list(levelShape(WHOLE)),
});

const ORDER = obj({
  orderId: numericId(),
  name: text('name'),
  lineItems: list(obj({
    variantId: numericId(),
    productId: opt(numericId()),
    sku: opt(text('label')),
    title: text('name'),
    quantity: dec(POSITIVE_WHOLE),
  })),
});

const PLATFORM = obj({ locations: list(obj({ id: numericId(), name: text('name') })), variants: list(VARIANT), orders: list(ORDER) });

// ---------- materials ----------

const VIRTUAL_MATERIAL = obj({
  variantId: pattern(/^VMAT-VAR-.+$/, 'must start with VMAT-VAR-'),
  productId: pattern(/^VMAT-PROD-.+$/, 'must start with VMAT-PROD-'),
  inventoryItemId: pattern(/^VMAT-INV-.+$/, 'must start with VMAT-INV-'),
  productName: text('name'),
  variantName: opt(text('name')),
  sku: opt(text('label')),
  vendor: opt(text('label')),
  unit: text('label'),
  unitCost: dec(NON_NEGATIVE),
  unitPrice: opt(dec(NON_NEGATIVE)),
  specifications: opt(text('text')),
  imageUrl: opt(text('url')),
  isNonEssentialMaterial: bool(false),
  weightValue: opt(dec(NON_NEGATIVE)),
  weightUnitId: opt(text('label')),
  productType: opt(text('label')),
  productCategory: opt(text('label')),
  levels: list(levelShape(undefined)),
  archivedAt: ARCHIVED_AT,
  ...PLANNING_MATERIAL_FIELDS,
}, {
  derived: { origin: 'virtual' },
  refused: { cachedQuantity: 'only platform-linked materials carry cachedQuantity; a virtual material\'s quantity is the sum of its levels' },
});

const MIRRORED_FIELDS = ['productId', 'inventoryItemId', 'productName', 'variantName', 'sku', 'vendor', 'unitCost', 'unitPrice',
  'imageUrl', 'weightValue', 'weightUnitId', 'productType', 'productCategory', 'levels'];

const PLATFORM_MATERIAL = obj({
  variantId: numericId(),
  unit: text('label'),
  isNonEssentialMaterial: bool(false),
  specifications: opt(text('text')),
  // Filled with the sum of the platform levels by the reference checks when omitted.
  cachedQuantity: opt(dec()),
  archivedAt: ARCHIVED_AT,
  ...PLANNING_MATERIAL_FIELDS,
}, {
  derived: { origin: 'platform' },
  refused: Object.fromEntries(MIRRORED_FIELDS.map((field) => [field,
    `"${field}" is mirrored from the platform variant; only virtual (VMAT-VAR-) materials may set it`])),
});

const MATERIAL: UnionShape = {
  type: 'union',
  optional: false,
  pick: (raw) => {
    const variantId = raw['variantId'];
    if (variantId === undefined || variantId === null) return { field: 'variantId', message: 'required field "variantId" is missing' };
    if (typeof variantId === 'string' && /^\d+$/.test(variantId)) return PLATFORM_MATERIAL;
    if (typeof variantId === 'string' && /^VMAT-VAR-.+$/.test(variantId)) return VIRTUAL_MATERIAL;
    return { field: 'variantId', message: `must be a numeric platform variant id or a VMAT-VAR-… virtual id, got ${JSON.stringify(variantId)}` };
  },
  pickParsed: (value) => (value['origin'] === 'platform' ? PLATFORM_MATERIAL : VIRTUAL_MATERIAL),
};

// ---------- recipes ----------

const RECIPE_FIELDS = {
  rawMaterialReferences: list(obj({ nodeId: id(), quantity: dec(POSITIVE), wastePercentage: decDefault('0', WASTE) })),
  subAssemblyReferences: list(obj({ nodeId: id(), quantity: dec(POSITIVE) })),
  costFactorReferences: list(obj({ costFactorId: id(), quantity: dec(POSITIVE) })),
};

const COST_FACTOR = obj({
  costFactorId: pattern(/^CF-.+$/, 'must have the form CF-<id>'),
  name: text('name'),
  kind: oneOf(COST_FACTOR_KINDS),
  unit: text('label'),
  unitCost: dec(NON_NEGATIVE),
  archivedAt: ARCHIVED_AT,
});

const ASSEMBLY_BILL = obj({
  assemblyId: pattern(/^ASM-.+$/, 'must have the form ASM-<id>'),
  name: text('name'),
  onlyConsumePreassembled: bool(false),
  archivedAt: ARCHIVED_AT,
  leadTimeDays: LEAD_TIME_DAYS,
  ...RECIPE_FIELDS,
});

const BOM = obj({
  bomId: pattern(/^BOM-\d+$/, 'must have the form BOM-<digits>'),
  name: text('name'),
  status: oneOf(BOM_STATUSES),
  variantId: opt(numericId()),
  // Absent means manual; written back only when given (an export gives it only when not manual).
  storefrontStock: { ...oneOf(STOREFRONT_STOCK_MODES), optional: true, omitWhenNull: true },
  archivedAt: ARCHIVED_AT,
  leadTimeDays: LEAD_TIME_DAYS,
  ...RECIPE_FIELDS,
});

const OVERRIDES: Record<string, ObjectShape> = {
  replace: obj({ action: oneOf(['replace']), nodeId: id(), replacementNodeId: id(), quantity: opt(dec(POSITIVE)), wastePercentage: opt(dec(WASTE)) }),
  remove: obj({ action: oneOf(['remove']), nodeId: id() }),
  add: obj({ action: oneOf(['add']), nodeId: id(), quantity: dec(POSITIVE), wastePercentage: decDefault('0', WASTE) }),
  adjust: obj({ action: oneOf(['adjust']), nodeId: id(), quantity: opt(dec(POSITIVE)), wastePercentage: opt(dec(WASTE)) }),
};

/** A union told apart by one enum member (`action`, `kind`). */
function taggedUnion(tag: string, members: Record<string, ObjectShape>): UnionShape {
  const names = Object.keys(members);
  return {
    type: 'union',
    optional: false,
    pick: (raw) => {
      const value = raw[tag];
      if (typeof value === 'string' && Object.hasOwn(members, value)) return members[value] as ObjectShape;
      if (value === undefined || value === null) return { field: tag, message: `required field "${tag}" is missing` };
      const shown = typeof value === 'string' ? JSON.stringify(value) : 'a non-string';
      return { field: tag, message: `must be one of ${names.map((n) => `"${n}"`).join(', ')}, got ${shown}` };
    },
    pickParsed: (value) => members[value[tag] as string] as ObjectShape,
  };
}

const LOCATION_RULE = obj({
  ownerType: oneOf(BILL_OWNER_TYPES),
  ownerId: id(),
  locationId: numericId(),
  overrides: list(taggedUnion('action', OVERRIDES)),
});

// ---------- stock bookkeeping ----------

const PREASSEMBLED = obj({ itemId: id(), locationId: numericId(), quantity: dec(NON_NEGATIVE) });
const RESIDUAL = obj({ itemId: id(), locationId: numericId(), kind: oneOf(RESIDUAL_KINDS), quantity: dec(FRACTION) });
const RESERVATION = taggedUnion('kind', {
  order: obj({
    kind: oneOf(['order']), itemId: id(), locationId: numericId(), orderId: numericId(),
    quantity: dec(NON_NEGATIVE), fulfilledQuantity: decDefault('0', NON_NEGATIVE),
  }),
  safetyStock: obj({
    kind: oneOf(['safetyStock']), itemId: id(), locationId: numericId(), ownerType: oneOf(BILL_OWNER_TYPES), ownerId: id(),
    quantity: dec(NON_NEGATIVE), active: bool(true),
  }),
});

// ---------- work orders ----------

const WORK_ORDER = obj({
  workOrderId: pattern(/^wo_.+$/, 'must have the form wo_<id>'),
  name: text('name'),
  description: opt(text('text')),
  notes: opt(text('text')),
  status: oneOf(WORK_ORDER_STATUSES),
  priority: oneOf(WORK_ORDER_PRIORITIES),
  dueDate: opt(DATE),
  assigneeId: opt(id()),
  productionLocationId: opt(numericId()),
  defaultConsumptionLocationId: opt(numericId()),
  sourceType: oneOf(WORK_ORDER_SOURCE_TYPES),
  sourceFlowId: opt(id()),
  sourceTodoId: opt(id()),
  sourceOrderIds: list(numericId()),
  tags: list(id('tag')),
  plannedLaborCost: opt(dec(NON_NEGATIVE)),
  actualLaborCost: opt(dec(NON_NEGATIVE)),
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
  items: list(obj({
    itemId: id(), ownerType: oneOf(BILL_OWNER_TYPES), ownerId: id(),
    quantity: dec(POSITIVE), completedQuantity: decDefault('0', NON_NEGATIVE),
  })),
  manualMaterials: list(obj({ variantId: id(), quantity: dec(POSITIVE), locationId: opt(numericId()), note: opt(text('text')) })),
  buildRuns: list(obj({
    buildRunId: id(),
    status: oneOf(BUILD_RUN_STATUSES),
    runType: oneOf(BUILD_RUN_TYPES),
    startedAt: TIMESTAMP,
    completedAt: opt(TIMESTAMP),
    items: list(obj({ itemId: id(), quantity: dec(POSITIVE) })),
    picks: list(obj({ variantId: id(), locationId: numericId(), quantity: dec(POSITIVE) })),
  })),
  qcReviews: list(obj({
    reviewId: id(), buildRunId: opt(id()), decision: oneOf(QC_DECISIONS),
    items: { ...list(obj({ itemId: id(), approvedQuantity: dec(NON_NEGATIVE), failedQuantity: dec(NON_NEGATIVE) })), omitWhenEmpty: true },
    note: opt(text()), reviewerName: opt(text('person')), createdAt: TIMESTAMP,
  })),
  reworkItems: list(obj({
    reworkItemId: id(), description: text('text'), quantity: dec(POSITIVE), status: oneOf(REWORK_ITEM_STATUSES),
    buildRunId: opt(id()), createdAt: TIMESTAMP, resolvedAt: opt(TIMESTAMP),
  })),
  documents: list(obj({ documentId: id(), name: text('name'), url: text('url'), createdAt: TIMESTAMP })),
  conversation: list(obj({ messageId: id(), authorName: opt(text('person')), body: text('text'), createdAt: TIMESTAMP })),
  lifecycleEvents: list(obj({
    eventId: id(), fromStatus: opt(oneOf(WORK_ORDER_STATUSES)), toStatus: oneOf(WORK_ORDER_STATUSES),
    note: opt(text('text')), actorUserId: opt(id()), actorDisplayName: opt(text('person')), createdAt: TIMESTAMP,
  })),
});

const BILL_VERSION = obj({
  ownerType: oneOf(BILL_OWNER_TYPES),
  ownerId: id(),
  version: int(1),
  state: oneOf(BILL_VERSION_STATES),
  savedAt: TIMESTAMP,
  savedBy: opt(text('label')),
  trigger: text('label'),
  contentHash: opt(text('label')),
  changes: obj({ recipeFields: int(0), materials: int(0), locationRules: int(0), overrides: int(0) }),
});

/** The whole file. formatVersion's value (1) is checked by the parser for a precise message. */
export const DATASET_SHAPE = obj({
  formatVersion: int(0),
  shop: SHOP,
  platform: opt(PLATFORM),
  materials: list(MATERIAL),
  costFactors: list(COST_FACTOR),
  assemblyBills: list(ASSEMBLY_BILL),
  boms: list(BOM),
  locationRules: list(LOCATION_RULE),
  preassembled: list(PREASSEMBLED),
  residuals: list(RESIDUAL),
  reservations: list(RESERVATION),
  assignees: list(obj({ assigneeId: id(), displayName: text('person'), active: bool(true) })),
  flows: list(obj({ flowId: id(), name: text('name') })),
  tasks: list(obj({ taskId: id(), title: text('name') })),
  workOrders: list(WORK_ORDER),
  billVersions: list(BILL_VERSION),
});
