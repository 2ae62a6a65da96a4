import { getAssemblyBill, getBom } from '../../../src/modules/boms/bom.service.ts';
import {
  createAssemblyBill, createBom, setBillArchived, updateAssemblyBill, updateBom,
} from '../../../src/modules/boms/bill-write.service.ts';
import { builder } from '../../builder.ts';
import { AssemblyBillRef, BomRef } from './bom.ts';
import { payloadField } from '../common/payload.ts';
import { BomStatusEnum, StorefrontStockEnum } from './enums.ts';
import { ArchiveRef, recipeListFields, savedBy } from './write-inputs.ts';

const SAVED_BY = 'Who saves, as the version index shows it (default: the API key).';

// Assembly bills and BOMs: create, edit (recipe lines, and a BOM's status) and archive. Every save
// records a bill version; the payload reads the bill as saved (after the commit), with its costs.

const NewAssemblyBillInput = builder.inputType('NewAssemblyBillInput', {
  description: 'A new assembly bill (sub-assembly) and its recipe.',
  fields: (t) => ({
    assemblyId: t.string({ description: 'Its id, of the form ASM-<id>; absent: the shop\'s next ASM-<n>.' }),
    name: t.string({ required: true, description: 'Name; not empty.' }),
    onlyConsumePreassembled: t.boolean({ description: 'Sellable quantities take it only from its pre-assembled shelf (default false).' }),
    leadTimeDays: t.int({ description: 'Planning: whole days from starting a batch to having it, 0 to 36500 (default 0).' }),
    ...recipeListFields(t),
  }),
});

const AssemblyBillPatchInput = builder.inputType('AssemblyBillPatchInput', {
  description: 'Changes to an assembly bill; only the fields and lists sent change.',
  fields: (t) => ({
    name: t.string({ description: 'Name; not empty.' }),
    onlyConsumePreassembled: t.boolean({ description: 'Sellable quantities take it only from its pre-assembled shelf.' }),
    leadTimeDays: t.int({ description: 'Planning: whole days from starting a batch to having it, 0 to 36500.' }),
    ...recipeListFields(t),
  }),
});

const NewBomInput = builder.inputType('NewBomInput', {
  description: 'A new bill of materials and its recipe.',
  fields: (t) => ({
    bomId: t.string({ description: 'Its id, of the form BOM-<digits>; absent: the shop\'s next BOM-<n>.' }),
    name: t.string({ required: true, description: 'Name; not empty.' }),
    status: t.field({ type: BomStatusEnum, description: 'Default active.' }),
    variantId: t.string({ description: 'The finished good: a platform variant that is no other BOM\'s finished good; absent = not platform-linked.' }),
    storefrontStock: t.field({ type: StorefrontStockEnum, description: 'Whether and how bomcore sets the finished good\'s available level on the platform. Default manual.' }),
    leadTimeDays: t.int({ description: 'Planning: whole days from starting a batch to having it, 0 to 36500 (default 0).' }),
    ...recipeListFields(t),
  }),
});

const BomPatchInput = builder.inputType('BomPatchInput', {
  description: 'Changes to a BOM; only the fields and lists sent change (null variantId unlinks the finished good).',
  fields: (t) => ({
    name: t.string({ description: 'Name; not empty.' }),
    status: t.field({ type: BomStatusEnum, description: 'active or inactive.' }),
    variantId: t.string({ description: 'The finished good platform variant; null unlinks it.' }),
    storefrontStock: t.field({ type: StorefrontStockEnum, description: 'manual, shelf or sellable; absent keeps it.' }),
    leadTimeDays: t.int({ description: 'Planning: whole days from starting a batch to having it, 0 to 36500.' }),
    ...recipeListFields(t),
  }),
});

const AssemblyBillSaveRef = builder.objectRef<{ assemblyId: string; billVersion: number | null }>('AssemblyBillSave').implement({
  description: 'An assembly bill as saved, and the version the save recorded.',
  fields: (t) => ({
    assemblyBill: t.field({ type: AssemblyBillRef, description: 'The bill with its recipe and unit cost.', resolve: (p, _args, ctx) => getAssemblyBill(ctx, p.assemblyId) }),
    billVersion: t.exposeInt('billVersion', { nullable: true, description: 'The version recorded (pending until its summary is filled).' }),
  }),
});

const BomSaveRef = builder.objectRef<{ bomId: string; billVersion: number | null }>('BomSave').implement({
  description: 'A BOM as saved, and the version the save recorded.',
  fields: (t) => ({
    bom: t.field({ type: BomRef, description: 'The BOM with its recipe, costs and assembly bills.', resolve: (p, _args, ctx) => getBom(ctx, p.bomId) }),
    billVersion: t.exposeInt('billVersion', { nullable: true, description: 'The version recorded (pending until its summary is filled).' }),
  }),
});


builder.mutationField('createAssemblyBill', (t) =>
  payloadField(t, 'createAssemblyBill', {
    type: AssemblyBillSaveRef,
    description: 'Creates an assembly bill. INVALID_INPUT names the field at fault (unknown or archived ids, cycles, bad quantities); CONFLICT when the id is taken.',
    args: { input: t.arg({ type: NewAssemblyBillInput, required: true, description: 'The bill and its recipe.' }), savedBy: t.arg.string({ required: false, description: SAVED_BY }) },
    resolve: async (_root, args, ctx) => {
      const saved = await createAssemblyBill(ctx, args.input.assemblyId ?? null, args.input, savedBy(args.savedBy, ctx));
      return { assemblyId: saved.ownerId, billVersion: saved.version };
    },
  }),
);

builder.mutationField('updateAssemblyBill', (t) =>
  payloadField(t, 'updateAssemblyBill', {
    type: AssemblyBillSaveRef,
    description: 'Changes an assembly bill; a sub-assembly line that would lead back to it is refused, naming the path. NOT_FOUND for an unknown id.',
    args: {
      assemblyId: t.arg.string({ required: true, description: 'The bill (ASM-…).' }),
      input: t.arg({ type: AssemblyBillPatchInput, required: true, description: 'The changes.' }),
      savedBy: t.arg.string({ required: false, description: SAVED_BY }),
    },
    resolve: async (_root, args, ctx) => {
      const saved = await updateAssemblyBill(ctx, args.assemblyId, args.input, savedBy(args.savedBy, ctx));
      return { assemblyId: saved.ownerId, billVersion: saved.version };
    },
  }),
);

builder.mutationField('setAssemblyBillArchived', (t) =>
  payloadField(t, 'setAssemblyBillArchived', {
    type: ArchiveRef,
    description: 'Archives (or restores) an assembly bill: it cannot be added to recipes; existing lines keep it. CONFLICT while an active BOM still reaches it.',
    args: {
      assemblyId: t.arg.string({ required: true, description: 'The bill (ASM-…).' }),
      archived: t.arg.boolean({ required: false, defaultValue: true, description: 'true archives (default), false restores.' }),
      savedBy: t.arg.string({ required: false, description: SAVED_BY }),
    },
    resolve: async (_root, args, ctx) => {
      const archived = args.archived ?? true;
      const saved = await setBillArchived(ctx, { ownerType: 'sub_assembly', ownerId: args.assemblyId }, archived, savedBy(args.savedBy, ctx));
      return { id: args.assemblyId, archived, billVersion: saved.version };
    },
  }),
);

builder.mutationField('createBom', (t) =>
  payloadField(t, 'createBom', {
    type: BomSaveRef,
    description: 'Creates a BOM. INVALID_INPUT names the field at fault (unknown or archived ids, a finished good taken, bad quantities); CONFLICT when the id is taken.',
    args: { input: t.arg({ type: NewBomInput, required: true, description: 'The BOM and its recipe.' }), savedBy: t.arg.string({ required: false, description: SAVED_BY }) },
    resolve: async (_root, args, ctx) => {
      const saved = await createBom(ctx, args.input.bomId ?? null, args.input, savedBy(args.savedBy, ctx));
      return { bomId: saved.ownerId, billVersion: saved.version };
    },
  }),
);

builder.mutationField('updateBom', (t) =>
  payloadField(t, 'updateBom', {
    type: BomSaveRef,
    description: 'Changes a BOM: name, status, finished good, storefront stock, recipe lines. NOT_FOUND for an unknown id.',
    args: {
      bomId: t.arg.string({ required: true, description: 'The BOM (BOM-…).' }),
      input: t.arg({ type: BomPatchInput, required: true, description: 'The changes.' }),
      savedBy: t.arg.string({ required: false, description: SAVED_BY }),
    },
    resolve: async (_root, args, ctx) => {
      const saved = await updateBom(ctx, args.bomId, args.input, savedBy(args.savedBy, ctx));
      return { bomId: saved.ownerId, billVersion: saved.version };
    },
  }),
);

builder.mutationField('setBomArchived', (t) =>
  payloadField(t, 'setBomArchived', {
    type: ArchiveRef,
    description: 'Archives (or restores) a BOM: it leaves the BOM list and its stats; reads by id and existing work orders keep working.',
    args: {
      bomId: t.arg.string({ required: true, description: 'The BOM (BOM-…).' }),
      archived: t.arg.boolean({ required: false, defaultValue: true, description: 'true archives (default), false restores.' }),
      savedBy: t.arg.string({ required: false, description: SAVED_BY }),
    },
    resolve: async (_root, args, ctx) => {
      const archived = args.archived ?? true;
      const saved = await setBillArchived(ctx, { ownerType: 'bom', ownerId: args.bomId }, archived, savedBy(args.savedBy, ctx));
      return { id: args.bomId, archived, billVersion: saved.version };
    },
  }),
);
