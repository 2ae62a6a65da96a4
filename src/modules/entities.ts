import { ApiKey } from './auth/api-key.entity.ts';
import { Event, EventSequence, WebhookDelivery, WebhookEndpoint } from './events/event.entity.ts';
import { Material, MaterialListCount, MaterialQuantity } from './materials/material.entity.ts';
import { OrderFulfilment } from './orders/order-fulfilment.entity.ts';
import { Assignee, Flow, Task } from './people/people.entity.ts';
import {
  PlatformAppliedPush, PlatformLevel, PlatformLocation, PlatformOrder, PlatformOrderLine, PlatformOrderMetafield, PlatformVariant,
} from '../platform/local-store.entity.ts';
import { PlatformConnection } from '../platform/shopify/connection.entity.ts';
import { ShopifyInstallState } from '../platform/shopify/install-state.entity.ts';
import { ShopifyWebhookEvent } from '../platform/shopify/webhooks/inbox.entity.ts';
import { AssemblyBill, BillVersion, Bom, CostFactor, LocationRule, LocationRuleOverride, RecipeLine } from './boms/recipe.entity.ts';
import { BillCost, BomListEntry, BomListStats } from './boms/cost-rollup.entity.ts';
import { StorefrontRecompute } from './boms/storefront-recompute.entity.ts';
import { IdempotencyKey } from './idempotency/idempotency.entity.ts';
import { ShopDataVersion, ShopDataVersionMark } from './shops/data-version.entity.ts';
import { Shop } from './shops/shop.entity.ts';
import { InventoryAdjustment, MaterialLevel } from './stock/ledger.entity.ts';
import { PlatformPush } from './stock/platform-push.entity.ts';
import { PreassembledStock, Reservation, Residual } from './stock/stock.entity.ts';
import {
  LifecycleEvent, QcReview, QcReviewItem, ReworkItem, WorkOrderDocument, WorkOrderMessage,
} from './work-orders/work-order-records.entity.ts';
import {
  BuildRun, BuildRunItem, BuildRunPick, WorkOrder, WorkOrderFacetCount, WorkOrderItem, WorkOrderManualMaterial,
} from './work-orders/work-order.entity.ts';

/** Every entity, in one list for the ORM and the migration check. */
export const entities = [
  Shop, ShopDataVersion, ShopDataVersionMark, ApiKey, IdempotencyKey,
  PlatformLocation, PlatformVariant, PlatformLevel, PlatformOrder, PlatformOrderLine, PlatformOrderMetafield, PlatformAppliedPush, PlatformConnection, ShopifyWebhookEvent, ShopifyInstallState,
  Material, MaterialListCount, MaterialQuantity, MaterialLevel, InventoryAdjustment,
  CostFactor, AssemblyBill, Bom, RecipeLine, LocationRule, LocationRuleOverride, BillVersion, BillCost, BomListEntry, BomListStats, StorefrontRecompute,
  PreassembledStock, Residual, Reservation, PlatformPush, OrderFulfilment,
  Assignee, Flow, Task,
  WorkOrder, WorkOrderFacetCount, WorkOrderItem, WorkOrderManualMaterial, BuildRun, BuildRunItem, BuildRunPick,
  QcReview, QcReviewItem, ReworkItem, WorkOrderDocument, WorkOrderMessage, LifecycleEvent,
  EventSequence, Event, WebhookEndpoint, WebhookDelivery,
];

/** Tables whose rows belong to one shop and are replaced wholesale by `bomcore load`. */
export const datasetTables = [
  'platform_locations', 'platform_variants', 'platform_levels', 'platform_orders', 'platform_order_lines',
  'platform_order_metafields', 'platform_applied_pushes', 'materials', 'material_levels', 'cost_factors', 'assembly_bills', 'boms',
  'recipe_lines', 'location_rules', 'location_rule_overrides', 'bill_versions', 'preassembled_stock', 'residuals', 'reservations',
  'order_fulfilments', 'platform_pushes', 'storefront_recomputes', 'assignees', 'flows', 'tasks', 'work_orders', 'work_order_items', 'work_order_manual_materials', 'build_runs',
  'build_run_items', 'build_run_picks', 'qc_reviews', 'qc_review_items', 'rework_items', 'work_order_documents',
  'work_order_messages', 'lifecycle_events',
] as const;
