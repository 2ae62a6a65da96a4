import { createVirtualMaterial, setMaterialArchived } from '../../../src/modules/materials/material-write.service.ts';
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
  }),
});

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
