import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';

export const OWNER_TYPES = ['bom', 'sub_assembly'] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];

export const CostFactor = defineEntity({
  name: 'CostFactor',
  tableName: 'cost_factors',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    costFactorId: p.string().primary(),
    name: p.string(),
    kind: p.enum(['labor', 'overhead', 'packaging', 'machine', 'other']),
    unit: p.string().nullable(),
    unitCost: decimal(),
  },
});

export const AssemblyBill = defineEntity({
  name: 'AssemblyBill',
  tableName: 'assembly_bills',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    assemblyId: p.string().primary(),
    name: p.string(),
    onlyConsumePreassembled: p.boolean().default(false),
  },
  indexes: [{ properties: ['shopId', 'name'] }],
});

export const Bom = defineEntity({
  name: 'Bom',
  tableName: 'boms',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    bomId: p.string().primary(),
    name: p.string(),
    status: p.enum(['active', 'inactive']),
    variantId: p.string().nullable(),
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
    shopId: p.string().primary(),
    ownerType: p.enum(OWNER_TYPES).primary(),
    ownerId: p.string().primary(),
    lineType: p.enum(['raw', 'sub', 'cost']).primary(),
    position: p.integer().primary(),
    nodeId: p.string(),
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
    shopId: p.string().primary(),
    ownerType: p.enum(OWNER_TYPES).primary(),
    ownerId: p.string().primary(),
    locationId: p.string().primary(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

/** One override of a location rule, in order. */
export const LocationRuleOverride = defineEntity({
  name: 'LocationRuleOverride',
  tableName: 'location_rule_overrides',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    ownerType: p.enum(OWNER_TYPES).primary(),
    ownerId: p.string().primary(),
    locationId: p.string().primary(),
    position: p.integer().primary(),
    action: p.enum(['replace', 'remove', 'add', 'adjust']),
    nodeId: p.string(),
    replacementNodeId: p.string().nullable(),
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
    shopId: p.string().primary(),
    ownerType: p.enum(OWNER_TYPES).primary(),
    ownerId: p.string().primary(),
    version: p.integer().primary(),
    state: p.enum(['ready', 'pending']),
    savedAt: timestamp(),
    savedBy: p.string().nullable(),
    trigger: p.string(),
    contentHash: p.string().nullable(),
    changedRecipeFields: p.integer().default(0),
    changedMaterials: p.integer().default(0),
    changedLocationRules: p.integer().default(0),
    changedOverrides: p.integer().default(0),
  },
});
