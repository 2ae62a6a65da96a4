import { MaterialUsageRef } from '../materials/raw-material.ts';
import { CommitmentHolderRef } from '../materials/stock.ts';
import { ShelfHolderRef, WoHolderRef } from '../materials/allocation.ts';
import { BuildableRef } from '../boms/buildable.ts';
import { BillRuleRef } from '../boms/location-rules.ts';
import { PlanContributionRef, WorkOrderItemRef } from '../work-orders/work-order.ts';
import { AdjustmentRef } from '../graph/adjustments.ts';
import { billOwnerFields, linkField } from './link-field.ts';

// Rows that name a bill (BOM or assembly bill) or a work order lead to it: a material's uses to the
// bills that use it (and on, through `Bom.workOrders`, to the work orders that build them), a
// work-order item to what it builds. Every link reads through the request's loaders.

billOwnerFields(MaterialUsageRef, (u) => u, 'that uses the material');
billOwnerFields(WorkOrderItemRef, (i) => i, 'this item builds');
billOwnerFields(PlanContributionRef, (c) => c, 'whose recipe this contribution comes from (recipe contributions)');
billOwnerFields(BillRuleRef, (r) => r, 'whose rule this is');
billOwnerFields(ShelfHolderRef, (h) => ({ ownerType: h.holderType, ownerId: h.holderId }), 'whose shelf units embed the material');
billOwnerFields(CommitmentHolderRef, (h) => ({ ownerType: h.holderType, ownerId: h.holderId }), 'behind a safety-stock hold (holderType `bom` / `sub_assembly`)');

linkField(BuildableRef, 'bom', 'Bom', 'The BOM these figures are for.', (b) => b.bomId);
linkField(WoHolderRef, 'workOrder', 'WorkOrder', 'The work order that holds the allocation (holderId).', (h) => h.holderId);
linkField(AdjustmentRef, 'workOrder', 'WorkOrder', 'The work order of a build-run change; null for inventory updates.', (a) => a.workOrderId);
