import { SORT_DIRECTIONS } from '../../../src/db/keyset.ts';
import {
  BILL_OWNER_TYPES, BILL_VERSION_STATES, BOM_SORTS, BOM_STATUS_FILTERS, BOM_STATUSES, COST_FACTOR_KINDS, LIMITING_COMPONENT_ORIGINS, LOCATION_RULE_ACTIONS,
  STOCKED_LINE_TYPES, STOREFRONT_STOCK_MODES,
} from '../../../src/modules/boms/recipe-vocabulary.ts';
import { builder } from '../../builder.ts';

// The recipe vocabulary as GraphQL enums (values from the one vocabulary module,
// src/modules/boms/recipe-vocabulary.ts): every field and argument that takes or gives one of
// these sets has this type.

export const BillOwnerTypeEnum = builder.enumType('BillOwnerType', {
  description: 'The owner of a recipe: `bom` (a BOM, whose recipe builds a finished good) or `sub_assembly` (an assembly bill).',
  values: BILL_OWNER_TYPES,
});

/** How each BOM sort key orders, where its name does not say it (the first is the default). */
const BOM_SORT_NOTES: Partial<Record<(typeof BOM_SORTS)[number], string>> = { name: 'case-insensitive', bomId: 'by its number' };
/** The BOM sorts in order, the default marked and each with its note: the `sortBy` description of every BOM list. */
export const BOM_SORTS_TEXT = BOM_SORTS
  .map((sort, i) => {
    const notes = [i === 0 ? 'default' : null, BOM_SORT_NOTES[sort] ?? null].filter((n) => n !== null);
    return notes.length > 0 ? `${sort} (${notes.join(', ')})` : sort;
  })
  .join(' | ');

export const BomSortEnum = builder.enumType('BomSort', {
  description: `What the BOM lists sort by: ${BOM_SORTS_TEXT}. Empty SKUs and prices come last either way.`,
  values: BOM_SORTS,
});

export const BomStatusEnum = builder.enumType('BomStatus', {
  description: 'Whether a BOM is in use: `active` BOMs are built and sold; `inactive` ones are kept but not used.',
  values: BOM_STATUSES,
});

export const BomStatusFilterEnum = builder.enumType('BomStatusFilter', { values: BOM_STATUS_FILTERS });

export const BomSortOrderEnum = builder.enumType('BomSortOrder', { values: SORT_DIRECTIONS });

export const CostFactorKindEnum = builder.enumType('CostFactorKind', {
  description: 'What a cost factor stands for.',
  values: COST_FACTOR_KINDS,
});

export const LocationRuleActionEnum = builder.enumType('LocationRuleAction', {
  description: 'What an override does to the recipe at its location.',
  values: LOCATION_RULE_ACTIONS,
});

export const StockedLineTypeEnum = builder.enumType('StockedLineType', {
  description: 'A recipe line that names stock: `raw` (a raw material) or `sub` (an assembly bill).',
  values: STOCKED_LINE_TYPES,
});

export const BillVersionStateEnum = builder.enumType('BillVersionState', {
  description: '`ready`: the version\'s content hash and change counts are filled in; `pending`: saved, its summary not yet derived.',
  values: BILL_VERSION_STATES,
});

export const LimitingComponentOriginEnum = builder.enumType('LimitingComponentOrigin', {
  description: 'What limits a buildable quantity: a material by its origin (`platform`, `virtual`) or a pre-assembled shelf (`preassembled`).',
  values: LIMITING_COMPONENT_ORIGINS,
});

export const StorefrontStockEnum = builder.enumType('StorefrontStock', {
  description: 'Whether and how bomcore sets the platform\'s available level of a BOM\'s finished good (a platform variant), at each location that stocks it: '
    + '`manual` (default) never writes it; `shelf` sets it to the finished good\'s pre-assembled shelf there less the open order reservations there; '
    + '`sellable` adds what the components there can still make (the buildable `sellable`). Whole units, never below 0; recomputed within seconds of a change.',
  values: STOREFRONT_STOCK_MODES,
});
