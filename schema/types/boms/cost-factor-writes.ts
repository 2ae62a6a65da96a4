import { createCostFactor, setCostFactorArchived, updateCostFactor } from '../../../src/modules/boms/cost-factor-write.service.ts';
import { loadCostFactors } from '../../../src/modules/boms/recipe-data.ts';
import { DomainError } from '../../../src/kernel/domain-error.ts';
import type { ShopContext } from '../../../src/kernel/shop-context.ts';
import { builder } from '../../builder.ts';
import { CostFactorRef } from './recipe-lines.ts';
import { payloadField } from '../common/payload.ts';
import { CostFactorKindEnum } from './enums.ts';
import { ArchiveRef } from './write-inputs.ts';

// Cost factors: create, edit and archive. A new unit cost reprices every bill that uses the factor.

const NewCostFactorInput = builder.inputType('NewCostFactorInput', {
  description: 'A new cost factor.',
  fields: (t) => ({
    costFactorId: t.string({ description: 'Its id, of the form CF-<id>; absent: the shop\'s next CF-<n>.' }),
    name: t.string({ required: true, description: 'Name; not empty.' }),
    kind: t.field({ type: CostFactorKindEnum, required: true, description: 'What it stands for.' }),
    unit: t.string({ description: 'Unit the cost is per (hour, piece, …).' }),
    unitCost: t.field({ type: 'Decimal', required: true, description: 'Cost per unit; at least 0.' }),
  }),
});

const CostFactorPatchInput = builder.inputType('CostFactorPatchInput', {
  description: 'Fields of a cost factor to change; only the fields sent change (null clears unit).',
  fields: (t) => ({
    name: t.string({ description: 'Name; not empty.' }),
    kind: t.field({ type: CostFactorKindEnum, description: 'What it stands for.' }),
    unit: t.string({ description: 'Unit the cost is per; null clears it.' }),
    unitCost: t.field({ type: 'Decimal', description: 'Cost per unit; at least 0. Reprices every bill that uses the factor.' }),
  }),
});

/** The factor as the `costFactors` query shows it, read after the write committed. */
async function readCostFactor(ctx: ShopContext, costFactorId: string) {
  const factor = (await loadCostFactors(ctx, [costFactorId])).get(costFactorId);
  if (!factor) throw DomainError.notFound('cost factor', costFactorId);
  return factor;
}

builder.mutationField('createCostFactor', (t) =>
  payloadField(t, 'createCostFactor', {
    type: CostFactorRef,
    description: 'Creates a cost factor. CONFLICT when the id is taken.',
    args: { input: t.arg({ type: NewCostFactorInput, required: true, description: 'The factor\'s fields.' }) },
    resolve: async (_root, args, ctx) => readCostFactor(ctx, await createCostFactor(ctx, args.input.costFactorId ?? null, args.input)),
  }),
);

builder.mutationField('updateCostFactor', (t) =>
  payloadField(t, 'updateCostFactor', {
    type: CostFactorRef,
    description: 'Changes fields of a cost factor; NOT_FOUND for an unknown id.',
    args: {
      costFactorId: t.arg.string({ required: true, description: 'The factor (CF-…).' }),
      input: t.arg({ type: CostFactorPatchInput, required: true, description: 'The fields to change.' }),
    },
    resolve: async (_root, args, ctx) => {
      await updateCostFactor(ctx, args.costFactorId, args.input);
      return readCostFactor(ctx, args.costFactorId);
    },
  }),
);

builder.mutationField('setCostFactorArchived', (t) =>
  payloadField(t, 'setCostFactorArchived', {
    type: ArchiveRef,
    description: 'Archives (or restores) a cost factor: it cannot be added to recipes; existing lines keep pricing it. CONFLICT while an active BOM still uses it.',
    args: {
      costFactorId: t.arg.string({ required: true, description: 'The factor (CF-…).' }),
      archived: t.arg.boolean({ required: false, defaultValue: true, description: 'true archives (default), false restores.' }),
    },
    resolve: async (_root, args, ctx) => {
      const archived = args.archived ?? true;
      await setCostFactorArchived(ctx, args.costFactorId, archived);
      return { id: args.costFactorId, archived, billVersion: null };
    },
  }),
);
