import { removeLocationRule, setLocationRule } from '../../../src/modules/boms/location-rule-write.service.ts';
import type { BillKey } from '../../../src/modules/boms/engine/index.ts';
import { builder } from '../../builder.ts';
import { BillOwnerTypeEnum, LocationRuleActionEnum } from './enums.ts';
import { payloadField } from '../common/payload.ts';
import { savedBy } from './write-inputs.ts';

// A bill's rule at one location: set (its overrides, in order) or remove. One pair of mutations per
// owner kind, so the id argument says what it names.

const OverrideInput = builder.inputType('LocationRuleOverrideInput', {
  description: 'One override of a location rule.',
  fields: (t) => ({
    action: t.field({ type: LocationRuleActionEnum, required: true }),
    nodeId: t.string({ required: true, description: 'The line it changes (a material or assembly of the base recipe); for add, the new node. Once per rule.' }),
    replacementNodeId: t.string({ description: 'replace: the node used instead, of the same kind as the replaced line.' }),
    quantity: t.field({ type: 'Decimal', description: 'Greater than 0. Required for add; replace and adjust default to the line\'s.' }),
    wastePercentage: t.field({ type: 'Decimal', description: 'Material lines only; 0 to less than 1000.' }),
  }),
});

const SavedRuleRef = builder.objectRef<BillKey & { locationId: string; version: number | null }>('LocationRuleSave').implement({
  description: 'The bill whose rule was saved and the version the save recorded.',
  fields: (t) => ({
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum }),
    ownerId: t.exposeString('ownerId', { description: 'The BOM or assembly id.' }),
    locationId: t.exposeString('locationId', { description: 'The location of the rule.' }),
    billVersion: t.exposeInt('version', { nullable: true, description: 'The version recorded (pending until its summary is filled); null when nothing changed.' }),
  }),
});

const owners = [['Bom', 'bom', 'bomId', 'The BOM (BOM-…).'], ['AssemblyBill', 'sub_assembly', 'assemblyId', 'The assembly bill (ASM-…).']] as const;

for (const [suffix, ownerType, idArg, idDescription] of owners) {
  builder.mutationField(`set${suffix}LocationRule`, (t) =>
    payloadField(t, `set${suffix}LocationRule`, {
      type: SavedRuleRef,
      description: 'Sets the rule of the bill at a location to exactly these overrides (replacing any rule there). INVALID_INPUT names each override at fault '
        + '(a line the bill does not have, a replacement of another kind, waste on an assembly, a loop of assembly bills at that location); NOT_FOUND for an unknown bill or location.',
      args: {
        [idArg]: t.arg.string({ required: true, description: idDescription }),
        locationId: t.arg.string({ required: true, description: 'The location (a platform location id).' }),
        overrides: t.arg({ type: [OverrideInput], required: true, description: 'The overrides, applied in this order.' }),
        savedBy: t.arg.string({ required: false, description: 'Who saves, as the version index shows it (default: the API key).' }),
      },
      resolve: async (_root, args: any, ctx) => {
        const key: BillKey = { ownerType, ownerId: args[idArg] };
        const saved = await setLocationRule(ctx, key, args.locationId, args.overrides, savedBy(args.savedBy, ctx));
        return { ...saved, locationId: args.locationId };
      },
    }));

  builder.mutationField(`remove${suffix}LocationRule`, (t) =>
    payloadField(t, `remove${suffix}LocationRule`, {
      type: SavedRuleRef,
      description: 'Removes the rule of the bill at a location: the base recipe applies there again. NOT_FOUND for an unknown bill.',
      args: {
        [idArg]: t.arg.string({ required: true, description: idDescription }),
        locationId: t.arg.string({ required: true, description: 'The location of the rule.' }),
        savedBy: t.arg.string({ required: false, description: 'Who saves, as the version index shows it (default: the API key).' }),
      },
      resolve: async (_root, args: any, ctx) => {
        const saved = await removeLocationRule(ctx, { ownerType, ownerId: args[idArg] }, args.locationId, savedBy(args.savedBy, ctx));
        return { ...saved, locationId: args.locationId };
      },
    }));
}
