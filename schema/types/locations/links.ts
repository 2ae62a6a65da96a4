import { AdjustmentRef } from '../stock/adjustments.ts';
import { BuildableLocationRef } from '../boms/buildable.ts';
import { LocationRulesLocationRef } from '../boms/location-rules.ts';
import { LevelRef as InventoryLevelRef, RowRef as InventoryRowRef } from '../stock/inventory.ts';
import { MaterialUsageRef } from '../materials/raw-material.ts';
import { CommitmentLevelRef, PreassembledLevelRef, ResidualLevelRef } from '../stock/stock.ts';
import { ShelfLevelRef, WoLevelRef } from '../stock/allocation.ts';
import {
  ItemConsumptionRef, PickRef, PlanConsumptionRowRef, PlanContributionRef, PlanMaterialRef, WarningRef, WorkOrderHeaderRef,
} from '../work-orders/work-order.ts';
import { linkField } from '../common/link-field.ts';

// Every `…LocationId` / `locationId` of a read type leads to its platform `Location` (one read of the
// shop's locations per request, however many rows ask).

const AT = 'The platform location of `locationId` (null when the platform no longer lists it).';
const AT_OR_NONE = 'The platform location of `locationId`; null when there is none or the platform no longer lists it.';

linkField(WorkOrderHeaderRef, 'productionLocation', 'Location', 'The location of `productionLocationId`; null when unset or no longer listed.', (w) => w.productionLocationId);
linkField(WorkOrderHeaderRef, 'defaultConsumptionLocation', 'Location', 'The location of `defaultConsumptionLocationId`; null when unset or no longer listed.',
  (w) => w.defaultConsumptionLocationId);
linkField(MaterialUsageRef, 'location', 'Location', 'The location of a location-rule use; null for a base-recipe line (every location).', (u) => u.locationId);
linkField(PlanMaterialRef, 'location', 'Location', 'The consumption location; null when unlocated.', (m) => m.locationId);
linkField(PlanContributionRef, 'location', 'Location', AT_OR_NONE, (c) => c.locationId);
linkField(PlanConsumptionRowRef, 'location', 'Location', AT, (r) => r.locationId);
linkField(ItemConsumptionRef, 'location', 'Location', AT_OR_NONE, (c) => c.locationId);
linkField(PickRef, 'location', 'Location', AT, (p) => p.locationId);
linkField(WarningRef, 'location', 'Location', AT_OR_NONE, (w) => w.locationId);
linkField(AdjustmentRef, 'location', 'Location', AT, (a) => a.locationId);
linkField(BuildableLocationRef, 'location', 'Location', AT, (l) => l.locationId);
linkField(LocationRulesLocationRef, 'location', 'Location', AT, (l) => l.locationId);
for (const level of [ResidualLevelRef, PreassembledLevelRef, CommitmentLevelRef, ShelfLevelRef, WoLevelRef, InventoryLevelRef, InventoryRowRef]) {
  linkField<{ locationId: string }>(level, 'location', 'Location', AT, (l) => l.locationId);
}
