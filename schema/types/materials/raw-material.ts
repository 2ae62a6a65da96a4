import type { MaterialConnection, MaterialConnections } from '../../../src/modules/materials/material-connections.service.ts';
import { listMaterials, type MaterialListRow, type MaterialPage } from '../../../src/modules/materials/material-list.service.ts';
import { updateMaterial } from '../../../src/modules/materials/material-update.service.ts';
import { findMaterialRow, toMaterialView, type MaterialView } from '../../../src/modules/materials/material-view.ts';
import { PAGE_DEFAULTS, PAGE_LIMITS } from '../../../src/kernel/limits.ts';
import { MATERIAL_LIST_DEFAULTS, MATERIAL_SORTS } from '../../../src/modules/materials/material-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { BillOwnerTypeEnum, BomStatusEnum, LocationRuleActionEnum } from '../boms/enums.ts';
import { payloadField } from '../common/payload.ts';
import {
  MaterialOriginEnum, MaterialOriginFilterEnum, MaterialSortEnum, MaterialSortOrderEnum, MaterialUsageFilterEnum, MaterialUsageSourceEnum,
} from './enums.ts';


// Shared by RawMaterial and RawMaterialListItem (whose source extends MaterialView); typed loosely
// because Pothos field builders are invariant in their parent type.
function materialFields<T extends MaterialView>(t: any): Record<string, any> {
  const text = (name: keyof MaterialView, description?: string) => t.exposeString(name, { nullable: true, ...(description ? { description } : {}) });
  const dec = (name: keyof MaterialView, description?: string) => t.expose(name, { type: 'Decimal', nullable: true, ...(description ? { description } : {}) });
  return {
    variantId: t.exposeString('variantId', { description: 'Numeric platform variant id, or VMAT-VAR-<uuid> for a virtual material.' }),
    origin: t.expose('origin', { type: MaterialOriginEnum }),
    isVirtual: t.boolean({ resolve: (m: T) => m.origin === 'virtual' }),
    productId: t.exposeString('productId', { description: 'VMAT-PROD-<uuid> for a virtual material.' }),
    inventoryItemId: t.exposeString('inventoryItemId', { description: 'VMAT-INV-<uuid> for a virtual material.' }),
    productName: t.exposeString('productName'),
    variantName: text('variantName'),
    sku: text('sku'),
    vendor: text('vendor'),
    unit: text('unit', 'Unit label (kg, pcs, …).'),
    unitCost: dec('unitCost'),
    unitPrice: dec('unitPrice'),
    inventoryQuantity: t.expose('inventoryQuantity', { type: 'Decimal', description: 'Platform: the cached platform total. Virtual: the sum of its levels.' }),
    specifications: text('specifications'),
    imageUrl: text('imageUrl'),
    isNonEssentialMaterial: t.exposeBoolean('isNonEssentialMaterial', { description: 'Non-essential materials are ignored by buildable quantities.' }),
    weightValue: dec('weightValue'),
    weightUnitId: text('weightUnitId'),
    productType: text('productType'),
    productCategory: text('productCategory'),
    leadTimeDays: t.exposeInt('leadTimeDays', { description: 'Planning: whole days from ordering it to having it (0 = the same day).' }),
    minimumOrderQuantity: t.expose('minimumOrderQuantity', { type: 'Decimal', description: 'Planning: the smallest quantity a buy suggestion orders (0 = no minimum).' }),
    orderMultiple: t.expose('orderMultiple', { type: 'Decimal', nullable: true, description: 'Planning: buy suggestions order a multiple of it; null = any quantity.' }),
  };
}

/** One use of a material by a bill (`connections.boms` / `connections.subAssemblies`); the bill itself is `bom` / `assemblyBill` (schema/types/links). */
export const MaterialUsageRef = builder.objectRef<MaterialConnection>('MaterialUsage').implement({
  description: 'One use of a material by a bill: a line of its base recipe (locationId null, every location) or a location-rule override (that location). '
    + 'The bill is `bom` or `assemblyBill`.',
  fields: (t) => ({
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum }),
    ownerId: t.exposeString('ownerId', { description: 'The BOM id (BOM-…) or assembly id (ASM-…).' }),
    name: t.exposeString('name'),
    status: t.expose('status', { type: BomStatusEnum, nullable: true, description: 'BOMs: their status; null for assembly bills.' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Quantity of this material per unit of the bill (0 when a rule removes or replaces it).' }),
    wastePercentage: t.expose('wastePercentage', { type: 'Decimal' }),
    source: t.expose('source', { type: MaterialUsageSourceEnum, description: '`recipe` (base recipe line) or `locationRule` (an override of the rule at locationId).' }),
    action: t.expose('action', { type: LocationRuleActionEnum, nullable: true, description: 'The override; null for recipe lines.' }),
    locationId: t.exposeString('locationId', { nullable: true, description: 'Null: the base recipe, at every location without a rule changing it.' }),
    locationName: t.exposeString('locationName', { nullable: true }),
  }),
});

const UsagesRef = builder.objectRef<MaterialConnections>('MaterialUsages').implement({
  description: 'The uses of a material, by the kind of bill.',
  fields: (t) => ({
    boms: t.field({ type: [MaterialUsageRef], description: 'Uses by BOMs, ordered by BOM id, then location (base recipe first).', resolve: (c) => c.boms }),
    subAssemblies: t.field({
      type: [MaterialUsageRef], description: 'Uses by assembly bills, ordered by assembly id, then location (base recipe first).', resolve: (c) => c.subAssemblies,
    }),
  }),
});

export const RawMaterialRef = builder.objectRef<MaterialView>('RawMaterial').implement({
  description: 'A raw material, platform-linked or virtual.',
  fields: (t) => ({
    ...materialFields<MaterialView>(t),
    connections: t.field({
      type: UsagesRef,
      description: 'The BOMs and assembly bills that use this material (base recipes and location rules). '
        + 'Batched: the uses of a page of materials are one read.',
      resolve: (m, _args, ctx) => loadersOf(ctx).materialUsages.load(m.variantId),
    }),
  }),
});

const ListItemRef = builder.objectRef<MaterialListRow>('RawMaterialListItem').implement({
  description: 'A raw-material list row: the material with its usage counts.',
  fields: (t) => ({
    ...materialFields<MaterialListRow>(t),
    bomUsageCount: t.exposeInt('bomUsageCount', { description: 'BOMs whose own recipe lines name the material.' }),
    subAssemblyUsageCount: t.exposeInt('subAssemblyUsageCount', { description: 'Assembly bills whose own lines name the material.' }),
  }),
});

const PageRef = builder.objectRef<MaterialPage>('RawMaterialPage').implement({
  fields: (t) => ({
    items: t.field({ type: [ListItemRef], resolve: (p) => p.items }),
    totalCount: t.exposeInt('totalCount'),
    page: t.exposeInt('page'),
    pageSize: t.exposeInt('pageSize'),
    totalPages: t.exposeInt('totalPages'),
    availableVendors: t.exposeStringList('availableVendors', { description: 'Distinct vendors of every material of the shop, whatever the filters; sorted.' }),
  }),
});

builder.queryField('rawMaterials', (t) =>
  t.field({
    type: PageRef,
    description: 'A page of raw materials (both origins), filtered and sorted; ties break on variantId.',
    authScopes: { read: true },
    args: {
      search: t.arg.string({ required: false }),
      usageFilter: t.arg({ type: MaterialUsageFilterEnum, required: false, defaultValue: MATERIAL_LIST_DEFAULTS.usageFilter }),
      originFilter: t.arg({ type: MaterialOriginFilterEnum, required: false, defaultValue: MATERIAL_LIST_DEFAULTS.originFilter }),
      vendorFilter: t.arg.stringList({ required: false }),
      sortBy: t.arg({ type: MaterialSortEnum, required: false, description: `${valueList(MATERIAL_SORTS, true)}.` }),
      sortOrder: t.arg({ type: MaterialSortOrderEnum, required: false, defaultValue: MATERIAL_LIST_DEFAULTS.sortOrder }),
      page: t.arg.int({ required: false, defaultValue: 1, description: '1-based page number (default 1); below 1 is INVALID_INPUT.' }),
      pageSize: t.arg.int({ required: false, defaultValue: PAGE_DEFAULTS.rows, description: `Materials per page, 1–${PAGE_LIMITS.rows} (default ${PAGE_DEFAULTS.rows}); outside that range is INVALID_INPUT, as in REST.` }),
    },
    resolve: (_root, args, ctx) => listMaterials(ctx, {
      search: args.search ?? null, usageFilter: args.usageFilter ?? MATERIAL_LIST_DEFAULTS.usageFilter, originFilter: args.originFilter ?? MATERIAL_LIST_DEFAULTS.originFilter,
      vendorFilter: args.vendorFilter ?? [], sortBy: args.sortBy ?? null, sortOrder: args.sortOrder ?? MATERIAL_LIST_DEFAULTS.sortOrder, page: args.page, pageSize: args.pageSize,
    }),
  }),
);

builder.queryField('rawMaterial', (t) =>
  t.field({
    type: RawMaterialRef,
    description: 'One raw material; NOT_FOUND when the shop has no such material.',
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => toMaterialView(await findMaterialRow(ctx, String(args.variantId))),
  }),
);

const PatchInput = builder.inputType('RawMaterialPatchInput', {
  description: 'Editable fields of a virtual material; only the fields sent change (null clears a nullable field).',
  fields: (t) => ({
    productName: t.string(),
    variantName: t.string(),
    sku: t.string(),
    unit: t.string(),
    vendor: t.string(),
    specifications: t.string(),
    imageUrl: t.string(),
    weightUnitId: t.string(),
    productType: t.string(),
    productCategory: t.string(),
    unitCost: t.field({ type: 'Decimal' }),
    unitPrice: t.field({ type: 'Decimal' }),
    weightValue: t.field({ type: 'Decimal' }),
    inventoryQuantity: t.field({ type: 'Decimal', description: 'Only for a material stocked at exactly one location: that level becomes this value.' }),
    isNonEssentialMaterial: t.boolean(),
  }),
});

builder.mutationType({});

builder.mutationField('updateRawMaterial', (t) =>
  payloadField(t, 'updateRawMaterial', {
    type: RawMaterialRef,
    description: 'Changes fields of a virtual material; platform-linked materials are read-only in API v1 (INVALID_INPUT).',
    args: { variantId: t.arg.id({ required: true }), input: t.arg({ type: PatchInput, required: true }) },
    resolve: (_root, args, ctx) => updateMaterial(ctx, String(args.variantId), args.input),
  }),
);
