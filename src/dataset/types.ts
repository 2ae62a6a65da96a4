// The parsed, validated form of a dataset file (docs/datasets.md).
//
// Conventions of this shape, so consumers never re-check them:
// - every quantity and money value is a canonical decimal string ("0.4", "12.5", "-2");
// - optional scalars are `null` when the file omits them, arrays default to [] and booleans
//   to their documented defaults;
// - the key order of each interface is the canonical order of the file format.

/** Canonical decimal text: no exponent, no trailing fractional zeros, at most 6 fractional digits. */
export type DecimalString = string;
/** ISO 8601 UTC timestamp with milliseconds: `2026-11-01T09:00:00.000Z`. */
export type IsoTimestamp = string;
/** Calendar date `YYYY-MM-DD`. */
export type IsoDate = string;

export const DATASET_FORMAT_VERSION = 1;

// Vocabularies have one home each; the dataset format uses them as they are.
export {
  BILL_OWNER_TYPES, BILL_VERSION_STATES, BOM_STATUSES, COST_FACTOR_KINDS, LOCATION_RULE_ACTIONS, STOREFRONT_STOCK_MODES,
  type BillOwnerType, type BillVersionState, type BomStatus, type CostFactorKind, type LocationRuleAction, type StorefrontStockMode,
} from '../modules/boms/recipe-vocabulary.ts';
export { DEFAULT_SHOP_PLAN, SHOP_PLANS, type ShopPlan } from '../modules/shops/shop-vocabulary.ts';
export { RESERVATION_KINDS, RESIDUAL_KINDS, type ReservationKind, type ResidualKind } from '../modules/stock/stock-vocabulary.ts';
export {
  BUILD_RUN_STATUSES, BUILD_RUN_TYPES, QC_DECISIONS, REWORK_ITEM_STATUSES, WORK_ORDER_PRIORITIES, WORK_ORDER_SOURCE_TYPES,
  WORK_ORDER_STATUSES, type BuildRunStatus, type BuildRunType, type QcDecision, type ReworkItemStatus, type WorkOrderPriority,
  type WorkOrderSourceType, type WorkOrderStatus,
} from '../modules/work-orders/work-order-vocabulary.ts';
import type { BillOwnerType, BillVersionState, BomStatus, CostFactorKind, StorefrontStockMode } from '../modules/boms/recipe-vocabulary.ts';
import type { ResidualKind } from '../modules/stock/stock-vocabulary.ts';
import type { ShopPlan } from '../modules/shops/shop-vocabulary.ts';
import type {
  BuildRunStatus, BuildRunType, QcDecision, ReworkItemStatus, WorkOrderPriority, WorkOrderSourceType, WorkOrderStatus,
} from '../modules/work-orders/work-order-vocabulary.ts';

export interface Dataset {
  formatVersion: typeof DATASET_FORMAT_VERSION;
  shop: DatasetShop;
  platform: DatasetPlatform;
  materials: DatasetMaterial[];
  costFactors: DatasetCostFactor[];
  assemblyBills: DatasetAssemblyBill[];
  boms: DatasetBom[];
  locationRules: DatasetLocationRule[];
  preassembled: DatasetPreassembled[];
  residuals: DatasetResidual[];
  reservations: DatasetReservation[];
  assignees: DatasetAssignee[];
  flows: DatasetFlow[];
  tasks: DatasetTask[];
  workOrders: DatasetWorkOrder[];
  billVersions: DatasetBillVersion[];
}

export interface DatasetShop {
  id: string;
  name: string;
  /** standard | enhanced (default): a standard shop cannot start build runs (PLAN_REQUIRED). */
  plan: ShopPlan;
  settings: DatasetShopSettings;
}

export interface DatasetShopSettings {
  allowNegativeInventory: boolean;
  materialRequirementsMetafield: boolean;
}

// ---------- platform ----------

export interface DatasetPlatform {
  locations: DatasetLocation[];
  variants: DatasetVariant[];
  orders: DatasetOrder[];
}

export interface DatasetLocation {
  /** Bare numeric id. */
  id: string;
  name: string;
}

export interface DatasetLevel {
  locationId: string;
  available: DecimalString;
}

/** A platform variant: a finished good or the platform side of a platform-linked material. */
export interface DatasetVariant {
  variantId: string;
  productId: string;
  inventoryItemId: string;
  productName: string;
  variantName: string | null;
  sku: string | null;
  vendor: string | null;
  price: DecimalString | null;
  cost: DecimalString | null;
  imageUrl: string | null;
  productType: string | null;
  productCategory: string | null;
  weightValue: DecimalString | null;
  weightUnitId: string | null;
  /** Whole numbers; [] = the platform has no per-location data for this variant. */
  levels: DatasetLevel[];
}

export interface DatasetOrder {
  orderId: string;
  name: string;
  lineItems: DatasetOrderLineItem[];
}

export interface DatasetOrderLineItem {
  variantId: string;
  productId: string | null;
  sku: string | null;
  title: string;
  /** A whole number ≥ 1. */
  quantity: DecimalString;
}

// ---------- materials ----------

/**
 * `origin` is not written in the file: it is derived from the variantId form (numeric =
 * platform-linked, `VMAT-VAR-…` = virtual) and lets TypeScript narrow the union.
 */
export type DatasetMaterial = DatasetPlatformMaterial | DatasetVirtualMaterial;

/** Platform-linked: names, sku, prices, weight, image, type and levels come from platform.variants. */
export interface DatasetPlatformMaterial {
  origin: 'platform';
  variantId: string;
  unit: string;
  isNonEssentialMaterial: boolean;
  specifications: string | null;
  /** Defaults to the sum of the platform variant's levels. */
  cachedQuantity: DecimalString;
  /** When it was archived (hidden from lists, kept in the recipes that name it); absent or null = not archived. */
  archivedAt?: string | null;
  /** Planning: whole days from ordering to having it; absent = 0. */
  leadTimeDays?: number;
  /** Planning: the smallest quantity a buy suggestion orders; absent = 0. */
  minimumOrderQuantity?: DecimalString;
  /** Planning: buy suggestions order a multiple of it (> 0); absent = any quantity. */
  orderMultiple?: DecimalString;
}

export interface DatasetVirtualMaterial {
  origin: 'virtual';
  variantId: string;
  productId: string;
  inventoryItemId: string;
  productName: string;
  variantName: string | null;
  sku: string | null;
  vendor: string | null;
  unit: string;
  unitCost: DecimalString;
  unitPrice: DecimalString | null;
  specifications: string | null;
  imageUrl: string | null;
  isNonEssentialMaterial: boolean;
  weightValue: DecimalString | null;
  weightUnitId: string | null;
  productType: string | null;
  productCategory: string | null;
  /** May be fractional. */
  levels: DatasetLevel[];
  /** When it was archived (hidden from lists, kept in the recipes that name it); absent or null = not archived. */
  archivedAt?: string | null;
  /** Planning: whole days from ordering to having it; absent = 0. */
  leadTimeDays?: number;
  /** Planning: the smallest quantity a buy suggestion orders; absent = 0. */
  minimumOrderQuantity?: DecimalString;
  /** Planning: buy suggestions order a multiple of it (> 0); absent = any quantity. */
  orderMultiple?: DecimalString;
}

// ---------- recipes ----------

export interface DatasetCostFactor {
  costFactorId: string;
  name: string;
  kind: CostFactorKind;
  unit: string;
  unitCost: DecimalString;
  /** When it was archived (hidden from lists, kept in the recipes that name it); absent or null = not archived. */
  archivedAt?: string | null;
}

export interface DatasetRawMaterialReference {
  nodeId: string;
  quantity: DecimalString;
  /** 0 ≤ w < 1000; "0" when omitted. */
  wastePercentage: DecimalString;
}

export interface DatasetSubAssemblyReference {
  nodeId: string;
  quantity: DecimalString;
}

export interface DatasetCostFactorReference {
  costFactorId: string;
  quantity: DecimalString;
}

/** The recipe lines shared by BOMs and assembly bills. */
export interface DatasetRecipe {
  rawMaterialReferences: DatasetRawMaterialReference[];
  subAssemblyReferences: DatasetSubAssemblyReference[];
  costFactorReferences: DatasetCostFactorReference[];
}

export interface DatasetAssemblyBill extends DatasetRecipe {
  assemblyId: string;
  name: string;
  onlyConsumePreassembled: boolean;
  /** When it was archived (hidden from lists, kept in the recipes that name it); absent or null = not archived. */
  archivedAt?: string | null;
  /** Planning: whole days from starting a batch to having it; absent = 0. */
  leadTimeDays?: number;
}

export interface DatasetBom extends DatasetRecipe {
  bomId: string;
  name: string;
  status: BomStatus;
  /** The finished good's platform variant; null = not platform-linked. */
  variantId: string | null;
  /** Whether and how bomcore sets the finished good's storefront level; absent = manual. */
  storefrontStock?: StorefrontStockMode;
  /** When it was archived (hidden from lists, kept in the recipes that name it); absent or null = not archived. */
  archivedAt?: string | null;
  /** Planning: whole days from starting a batch to having it; absent = 0. */
  leadTimeDays?: number;
}

export interface DatasetLocationRule {
  ownerType: BillOwnerType;
  ownerId: string;
  locationId: string;
  overrides: DatasetLocationOverride[];
}

export type DatasetLocationOverride =
  | DatasetReplaceOverride
  | DatasetRemoveOverride
  | DatasetAddOverride
  | DatasetAdjustOverride;

/** quantity / wastePercentage null = keep the replaced line's. */
export interface DatasetReplaceOverride {
  action: 'replace';
  nodeId: string;
  replacementNodeId: string;
  quantity: DecimalString | null;
  wastePercentage: DecimalString | null;
}

export interface DatasetRemoveOverride {
  action: 'remove';
  nodeId: string;
}

export interface DatasetAddOverride {
  action: 'add';
  nodeId: string;
  quantity: DecimalString;
  wastePercentage: DecimalString;
}

/** null = keep the line's own value; at least one of the two is set. */
export interface DatasetAdjustOverride {
  action: 'adjust';
  nodeId: string;
  quantity: DecimalString | null;
  wastePercentage: DecimalString | null;
}

// ---------- stock bookkeeping ----------

export interface DatasetPreassembled {
  /** A platform variant id (finished good) or an assembly id. */
  itemId: string;
  locationId: string;
  quantity: DecimalString;
}

export interface DatasetResidual {
  itemId: string;
  locationId: string;
  kind: ResidualKind;
  /** 0 ≤ q < 1. */
  quantity: DecimalString;
}

export type DatasetReservation = DatasetOrderReservation | DatasetSafetyStockReservation;

export interface DatasetOrderReservation {
  kind: 'order';
  itemId: string;
  locationId: string;
  orderId: string;
  quantity: DecimalString;
  /** ≤ quantity; open quantity = quantity − fulfilledQuantity. */
  fulfilledQuantity: DecimalString;
}

export interface DatasetSafetyStockReservation {
  kind: 'safetyStock';
  itemId: string;
  locationId: string;
  ownerType: BillOwnerType;
  ownerId: string;
  quantity: DecimalString;
  active: boolean;
}

// ---------- people and planning ----------

export interface DatasetAssignee {
  assigneeId: string;
  displayName: string;
  active: boolean;
}

export interface DatasetFlow {
  flowId: string;
  name: string;
}

export interface DatasetTask {
  taskId: string;
  title: string;
}

// ---------- work orders ----------

export interface DatasetWorkOrder {
  workOrderId: string;
  name: string;
  description: string | null;
  notes: string | null;
  status: WorkOrderStatus;
  priority: WorkOrderPriority;
  dueDate: IsoDate | null;
  assigneeId: string | null;
  productionLocationId: string | null;
  defaultConsumptionLocationId: string | null;
  sourceType: WorkOrderSourceType;
  sourceFlowId: string | null;
  sourceTodoId: string | null;
  sourceOrderIds: string[];
  tags: string[];
  plannedLaborCost: DecimalString | null;
  actualLaborCost: DecimalString | null;
  createdAt: IsoTimestamp;
  updatedAt: IsoTimestamp;
  items: DatasetWorkOrderItem[];
  manualMaterials: DatasetManualMaterial[];
  buildRuns: DatasetBuildRun[];
  qcReviews: DatasetQcReview[];
  reworkItems: DatasetReworkItem[];
  documents: DatasetDocument[];
  conversation: DatasetMessage[];
  lifecycleEvents: DatasetLifecycleEvent[];
}

export interface DatasetWorkOrderItem {
  /** Unique within its work order. */
  itemId: string;
  ownerType: BillOwnerType;
  ownerId: string;
  quantity: DecimalString;
  completedQuantity: DecimalString;
}

export interface DatasetManualMaterial {
  variantId: string;
  quantity: DecimalString;
  locationId: string | null;
  note: string | null;
}

export interface DatasetBuildRun {
  /** Unique within its work order (the idempotency key of a build-run write). */
  buildRunId: string;
  status: BuildRunStatus;
  runType: BuildRunType;
  startedAt: IsoTimestamp;
  /** Set when status is completed, null while started. */
  completedAt: IsoTimestamp | null;
  items: DatasetBuildRunItem[];
  picks: DatasetPick[];
}

export interface DatasetBuildRunItem {
  /** An itemId of the same work order. */
  itemId: string;
  quantity: DecimalString;
}

export interface DatasetPick {
  variantId: string;
  locationId: string;
  quantity: DecimalString;
}

export interface DatasetQcReview {
  reviewId: string;
  buildRunId: string | null;
  decision: QcDecision;
  /**
   * Per item of the run: units approved and failed. Empty (or absent in a file): the decision
   * applies to every unit each item of the run built.
   */
  items: DatasetQcReviewItem[];
  note: string | null;
  reviewerName: string | null;
  createdAt: IsoTimestamp;
}

export interface DatasetQcReviewItem {
  itemId: string;
  approvedQuantity: DecimalString;
  failedQuantity: DecimalString;
}

export interface DatasetReworkItem {
  reworkItemId: string;
  description: string;
  quantity: DecimalString;
  status: ReworkItemStatus;
  buildRunId: string | null;
  createdAt: IsoTimestamp;
  /** Set exactly when status is resolved. */
  resolvedAt: IsoTimestamp | null;
}

export interface DatasetDocument {
  documentId: string;
  name: string;
  url: string;
  createdAt: IsoTimestamp;
}

export interface DatasetMessage {
  messageId: string;
  authorName: string | null;
  body: string;
  createdAt: IsoTimestamp;
}

export interface DatasetLifecycleEvent {
  eventId: string;
  fromStatus: WorkOrderStatus | null;
  toStatus: WorkOrderStatus;
  note: string | null;
  actorUserId: string | null;
  actorDisplayName: string | null;
  createdAt: IsoTimestamp;
}

// ---------- bill versions ----------

export interface DatasetBillVersion {
  ownerType: BillOwnerType;
  ownerId: string;
  /** ≥ 1, unique per owner. */
  version: number;
  state: BillVersionState;
  savedAt: IsoTimestamp;
  savedBy: string | null;
  trigger: string;
  contentHash: string | null;
  changes: DatasetBillVersionChanges;
}

export interface DatasetBillVersionChanges {
  recipeFields: number;
  materials: number;
  locationRules: number;
  overrides: number;
}

// ---------- results ----------

export interface DatasetError {
  /** JSONPath of the offending value, e.g. `$.boms[3].rawMaterialReferences[0].nodeId`. */
  path: string;
  message: string;
}

export type DatasetResult =
  | { ok: true; dataset: Dataset }
  | { ok: false; errors: DatasetError[] };
