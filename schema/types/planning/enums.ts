import { DEMAND_SOURCE_TYPES, MADE_ITEM_TYPES, PLANNED_ITEM_TYPES } from '../../../src/modules/planning/planning-vocabulary.ts';
import { builder } from '../../builder.ts';

// The planning vocabulary as GraphQL enums (src/modules/planning/planning-vocabulary.ts).

export const PlanDemandSourceEnum = builder.enumType('PlanDemandSource', {
  description: 'Where a demand comes from, in the order ties are served: `order` (an open order reservation), `work_order` (what an open work '
    + 'order\'s units not yet started and manual lines still need), `safety_stock` (an active hold, by the holding bill), `make` (a make '
    + 'suggestion\'s components, by the made item) and `what_if` (the extra demand of planningWhatIf).',
  values: DEMAND_SOURCE_TYPES,
});

export const MadeItemTypeEnum = builder.enumType('PlanMadeItemType', {
  description: 'What a make suggestion builds: `bom` (a BOM\'s finished good) or `assembly_bill`.',
  values: MADE_ITEM_TYPES,
});

export const PlannedItemTypeEnum = builder.enumType('PlanItemType', {
  description: 'Any item a plan nets: `raw_material` (bought), `bom` (a BOM\'s finished good) or `assembly_bill`.',
  values: PLANNED_ITEM_TYPES,
});
