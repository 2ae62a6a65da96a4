import { MaterialUsageRef } from '../materials/raw-material.ts';
import { CommitmentHolderRef } from '../stock/stock.ts';
import { ShelfHolderRef, WoHolderRef } from '../stock/allocation.ts';
import { BuildableRef } from './buildable.ts';
import { BillVersionPageRef } from './bill-version.ts';
import { BillRuleRef, LocationRulesRef } from './location-rules.ts';
import { BreakdownBomRef } from '../orders/breakdown.ts';
import { PlanContributionRef, WorkOrderItemRef } from '../work-orders/work-order.ts';
import { AdjustmentRef } from '../stock/adjustments.ts';
import { billOwnerFields, linkField } from '../common/link-field.ts';

// Rows that name a bill (BOM or assembly bill) or a work order lead to it: a material's uses to the
// bills that use it (and on, through `Bom.workOrders`, to the work orders that build them), a
// work-order item to what it builds. Every link reads through the request's loaders.

billOwnerFields(MaterialUsageRef, (u) => u, 'that uses the material');
billOwnerFields(WorkOrderItemRef, (i) => i, 'this item builds');
billOwnerFields(PlanContributionRef, (c) => c, 'whose recipe this contribution comes from (recipe contributions)');
billOwnerFields(BillRuleRef, (r) => r, 'whose rule this is');
billOwnerFields(ShelfHolderRef, (h) => ({ ownerType: h.holderType, ownerId: h.holderId }), 'whose shelf units embed the material');
billOwnerFields(CommitmentHolderRef, (h) => ({ ownerType: h.holderType, ownerId: h.holderId }), 'behind a safety-stock hold (holderType `bom` / `sub_assembly`)');
billOwnerFields(BillVersionPageRef, (p) => p, 'whose versions these are');
linkField(CommitmentHolderRef, 'order', 'Order', 'The platform order of an order reservation (holderType `order`); null for a safety-stock hold.',
  (h) => (h.holderType === 'order' ? h.holderId : null));

linkField(BuildableRef, 'bom', 'Bom', 'The BOM these figures are for.', (b) => b.bomId);
linkField(LocationRulesRef, 'bom', 'Bom', 'The BOM these rules are for.', (r) => r.bomId);
linkField(BreakdownBomRef, 'bom', 'Bom', 'The BOM of this order line (null if it no longer exists).', (b) => b.bomId);
linkField(WoHolderRef, 'workOrder', 'WorkOrder', 'The work order that holds the allocation (holderId).', (h) => h.holderId);
linkField(AdjustmentRef, 'workOrder', 'WorkOrder', 'The work order of a build-run change; null for inventory updates.', (a) => a.workOrderId);
