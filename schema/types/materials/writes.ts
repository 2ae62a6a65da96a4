import { createVirtualMaterial, setMaterialArchived } from '../../../src/modules/materials/material-write.service.ts';
import { updateMaterialPlanning } from '../../../src/modules/materials/material-planning.service.ts';
import { builder } from '../../builder.ts';
import { RawMaterialRef } from './raw-material.ts';
import { payloadField } from '../common/payload.ts';
import { ArchiveRef } from '../boms/write-inputs.ts';

// Virtual materials: create and archive. Edits are `updateRawMaterial` (the PATCH's mutation).

const NewMaterialInput = builder.inputType('NewVirtualMaterialInput', {
  description: 'A new virtual material: only productName is required; it starts with no stock.',
  fields: (t) => ({
    productName: t.string({ required: true, description: 'Product name; not empty.' }),
    variantName: t.string({ description: 'Variant name.' }),
    sku: t.string({ description: 'Stock-keeping unit.' }),
    unit: t.string({ description: 'Unit of measure (kg, pcs, …).' }),
    vendor: t.string({ description: 'Vendor name.' }),
    specifications: t.string({ description: 'Free-text specifications.' }),
    imageUrl: t.string({ description: 'Image address.' }),
    weightUnitId: t.string({ description: 'Unit of weightValue.' }),
    productType: t.string({ description: 'Product type.' }),
    productCategory: t.string({ description: 'Product category.' }),
    unitCost: t.field({ type: 'Decimal', description: 'Cost per unit; at least 0.' }),
    unitPrice: t.field({ type: 'Decimal', description: 'Price per unit; at least 0.' }),
    weightValue: t.field({ type: 'Decimal', description: 'Weight per unit; at least 0.' }),
    isNonEssentialMaterial: t.boolean({ description: 'Non-essential materials do not limit buildable quantities (default false).' }),
    leadTimeDays: t.int({ description: 'Planning: whole days from ordering it to having it, 0 to 36500 (default 0).' }),
    minimumOrderQuantity: t.field({ type: 'Decimal', description: 'Planning: the smallest quantity a buy suggestion orders; at least 0 (default 0).' }),
    orderMultiple: t.field({ type: 'Decimal', description: 'Planning: buy suggestions order a multiple of it; greater than 0, absent = any quantity.' }),
  }),
});

const MaterialPlanningInput = builder.inputType('MaterialPlanningInput', {
  description: 'A material\'s planning fields (docs/planning.md); only the fields sent change.',
  fields: (t) => ({
    leadTimeDays: t.int({ description: 'Planning: whole days from ordering it to having it, 0 to 36500.' }),
    minimumOrderQuantity: t.field({ type: 'Decimal', description: 'Planning: the smallest quantity a buy suggestion orders; at least 0.' }),
    orderMultiple: t.field({ type: 'Decimal', description: 'Planning: buy suggestions order a multiple of it; greater than 0, null = any quantity.' }),
  }),
});

builder.mutationField('updateMaterialPlanning', (t) =>
  payloadField(t, 'updateMaterialPlanning', {
    type: RawMaterialRef,
    description: 'Sets the planning fields (lead time, minimum order quantity, order multiple) of a material of either origin: '
      + 'they are bomcore\'s own, not mirrored from the platform. INVALID_INPUT names the field at fault.',
    args: {
      variantId: t.arg.id({ required: true, description: 'The material.' }),
      input: t.arg({ type: MaterialPlanningInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (_root, args, ctx) => updateMaterialPlanning(ctx, String(args.variantId), args.input),
  }),
);

builder.mutationField('createVirtualMaterial', (t) =>
  payloadField(t, 'createVirtualMaterial', {
    type: RawMaterialRef,
    description: 'Creates a virtual material (VMAT-VAR-<uuid>) with no stock; set its levels with adjustRawMaterialInventory.',
    args: { input: t.arg({ type: NewMaterialInput, required: true, description: 'The material\'s fields.' }) },
    resolve: (_root, args, ctx) => createVirtualMaterial(ctx, args.input),
  }),
);

builder.mutationField('setRawMaterialArchived', (t) =>
  payloadField(t, 'setRawMaterialArchived', {
    type: ArchiveRef,
    description: 'Archives (or restores) a virtual material: it cannot be added to recipes; existing lines keep it. '
      + 'CONFLICT while an active BOM still uses it; platform-linked materials are read-only (INVALID_INPUT).',
    args: {
      variantId: t.arg.id({ required: true, description: 'The virtual material (VMAT-VAR-…).' }),
      archived: t.arg.boolean({ required: false, defaultValue: true, description: 'true archives (default), false restores.' }),
    },
    resolve: async (_root, args, ctx) => {
      const id = String(args.variantId);
      return { id, archived: await setMaterialArchived(ctx, id, args.archived ?? true), billVersion: null };
    },
  }),
);
