import type { InputFieldBuilder, SchemaTypes } from '@pothos/core';
import { builder } from '../../builder.ts';

// Inputs shared by the catalogue mutations (their enums: schema/types/boms/enums.ts).

export const RawMaterialLineInput = builder.inputType('RawMaterialLineInput', {
  description: 'A raw-material line of a recipe.',
  fields: (t) => ({
    nodeId: t.string({ required: true, description: 'The material variantId (numeric platform id or VMAT-VAR-…); at most once per list.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Quantity per unit of the bill; greater than 0.' }),
    wastePercentage: t.field({ type: 'Decimal', description: 'Extra share consumed as waste, 0 to less than 1000 (default 0).' }),
  }),
});

export const SubAssemblyLineInput = builder.inputType('SubAssemblyLineInput', {
  description: 'A sub-assembly line of a recipe.',
  fields: (t) => ({
    nodeId: t.string({ required: true, description: 'The assembly id (ASM-…); at most once per list; must not lead back to the bill saved.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Assemblies per unit of the bill; greater than 0.' }),
  }),
});

export const CostFactorLineInput = builder.inputType('CostFactorLineInput', {
  description: 'A cost-factor line of a recipe.',
  fields: (t) => ({
    costFactorId: t.string({ required: true, description: 'The cost factor id (CF-…); at most once per list.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Units of the factor per unit of the bill; greater than 0.' }),
  }),
});

/** The three recipe lists of a bill input: a list sent replaces that list; absent keeps it (empty on create). */
export function recipeListFields<Types extends SchemaTypes>(t: InputFieldBuilder<Types, 'InputObject'>) {
  return {
    rawMaterialLines: t.field({ type: [RawMaterialLineInput], description: 'Replaces the raw-material lines (absent: unchanged; empty on create).' }),
    subAssemblyLines: t.field({ type: [SubAssemblyLineInput], description: 'Replaces the sub-assembly lines (absent: unchanged; empty on create).' }),
    costFactorLines: t.field({ type: [CostFactorLineInput], description: 'Replaces the cost-factor lines (absent: unchanged; empty on create).' }),
  };
}

/** The author of a save as the version index shows it: the name sent, else the API key. */
export function savedBy(name: string | null | undefined, ctx: { apiKeyId: string | null }): { savedBy: string | null } {
  return { savedBy: name ?? (ctx.apiKeyId === null ? null : `api-key:${ctx.apiKeyId}`) };
}

export const ArchiveRef = builder.objectRef<{ id: string; archived: boolean; billVersion: number | null }>('CatalogArchive').implement({
  description: 'The outcome of archiving or restoring a catalogue row.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The id of the row.' }),
    archived: t.exposeBoolean('archived', { description: 'Whether the row is now archived.' }),
    billVersion: t.exposeInt('billVersion', {
      nullable: true,
      description: 'Bills only: the version this save recorded (pending until its summary is filled); null when nothing changed or for materials and cost factors.',
    }),
  }),
});
