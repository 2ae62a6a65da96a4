import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';
import {
  BILL_OWNER_TYPES, BILL_VERSION_STATES, BOM_STATUSES, COST_FACTOR_KINDS, LOCATION_RULE_ACTIONS, RECIPE_LINE_TYPES, STOREFRONT_STOCK_MODES,
} from './recipe-vocabulary.ts';


export { BILL_OWNER_TYPES as OWNER_TYPES, type BillOwnerType as OwnerType } from './recipe-vocabulary.ts';

export const CostFactor = defineEntity({
  name: 'CostFactor',
  tableName: 'cost_factors',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    costFactorId: p.text().primary(),
    name: p.text(),
    kind: p.enum(COST_FACTOR_KINDS),
    unit: p.text().nullable(),
    unitCost: decimal(),
    /** Archived: refused in new recipe lines; existing lines keep it. */
    archivedAt: timestamp().nullable(),
  },
});

export const AssemblyBill = defineEntity({
  name: 'AssemblyBill',
  tableName: 'assembly_bills',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    assemblyId: p.text().primary(),
    name: p.text(),
    onlyConsumePreassembled: p.boolean().default(false),
    /** Planning: whole days from starting a batch to having it (default 0). */
    leadTimeDays: p.integer().default(0),
    /** Archived: refused in new recipe lines; existing lines keep it. */
    archivedAt: timestamp().nullable(),
  },
  indexes: [{ properties: ['shopId', 'name'] }],
});

export const Bom = defineEntity({
  name: 'Bom',
  tableName: 'boms',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    bomId: p.text().primary(),
    name: p.text(),
    status: p.enum(BOM_STATUSES),
    variantId: p.text().nullable(),
    /** Whether and how bomcore sets the platform's available level of the finished good (recipe-vocabulary.ts). */
    storefrontStock: p.enum(STOREFRONT_STOCK_MODES).default('manual'),
    /** Planning: whole days from starting a batch to having it (default 0). */
    leadTimeDays: p.integer().default(0),
    /** Archived: out of the BOM list; still readable by id. */
    archivedAt: timestamp().nullable(),
  },
  indexes: [
    { properties: ['shopId', 'name', 'bomId'] },
    { properties: ['shopId', 'status'] },
    { properties: ['shopId', 'variantId'] },
  ],
});

/** One line of a bill's own recipe: a raw material, a sub-assembly or a cost factor. */
export const RecipeLine = defineEntity({
  name: 'RecipeLine',
  tableName: 'recipe_lines',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    ownerType: p.enum(BILL_OWNER_TYPES).primary(),
    ownerId: p.text().primary(),
    lineType: p.enum(RECIPE_LINE_TYPES).primary(),
    position: p.integer().primary(),
    nodeId: p.text(),
    quantity: decimal(),
    wastePercentage: decimal().default('0'),
  },
  indexes: [{ properties: ['shopId', 'lineType', 'nodeId'] }],
});

/** A bill's per-location rule set; its overrides are applied when the bill is expanded there. */
export const LocationRule = defineEntity({
  name: 'LocationRule',
  tableName: 'location_rules',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    ownerType: p.enum(BILL_OWNER_TYPES).primary(),
    ownerId: p.text().primary(),
    locationId: p.text().primary(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

/** One override of a location rule, in order. */
export const LocationRuleOverride = defineEntity({
  name: 'LocationRuleOverride',
  tableName: 'location_rule_overrides',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    ownerType: p.enum(BILL_OWNER_TYPES).primary(),
    ownerId: p.text().primary(),
    locationId: p.text().primary(),
    position: p.integer().primary(),
    action: p.enum(LOCATION_RULE_ACTIONS),
    nodeId: p.text(),
    replacementNodeId: p.text().nullable(),
    quantity: decimal().nullable(),
    wastePercentage: decimal().nullable(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

export const BillVersion = defineEntity({
  name: 'BillVersion',
  tableName: 'bill_versions',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    ownerType: p.enum(BILL_OWNER_TYPES).primary(),
    ownerId: p.text().primary(),
    version: p.integer().primary(),
    state: p.enum(BILL_VERSION_STATES),
    savedAt: timestamp(),
    savedBy: p.text().nullable(),
    trigger: p.text(),
    contentHash: p.text().nullable(),
    changedRecipeFields: p.integer().default(0),
    changedMaterials: p.integer().default(0),
    changedLocationRules: p.integer().default(0),
    changedOverrides: p.integer().default(0),
    /**
     * The bill as saved, frozen in the save's transaction (null for versions loaded from a dataset).
     * The version filler derives the content hash and the change summary from it.
     */
    content: p.json<Record<string, unknown>>().nullable(),
  },
  // The version filler looks for pending rows across shops (or of some shops).
  indexes: [{ properties: ['state', 'shopId'] }],
});
