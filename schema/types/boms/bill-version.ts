import { listBillVersions, type BillVersionPage, type BillVersionView } from '../../../src/modules/boms/bill-versions.service.ts';
import { PAGE_DEFAULTS, PAGE_LIMITS } from '../../../src/kernel/limits.ts';
import { BILL_SAVE_TRIGGERS } from '../../../src/modules/boms/recipe-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { BillOwnerTypeEnum, BillVersionStateEnum } from './enums.ts';

const BillVersionChangesRef = builder.objectRef<BillVersionView['changes']>('BillVersionChanges').implement({
  description: 'Counts changed against the previous version, frozen when saved.',
  fields: (t) => ({
    recipeFields: t.exposeInt('recipeFields'), materials: t.exposeInt('materials'),
    locationRules: t.exposeInt('locationRules'), overrides: t.exposeInt('overrides'),
  }),
});

const BillVersionRef = builder.objectRef<BillVersionView>('BillVersion').implement({
  fields: (t) => ({
    version: t.exposeInt('version'),
    state: t.expose('state', { type: BillVersionStateEnum, description: 'Always `ready`: pending versions are counted (`pending`), not listed.' }),
    savedAt: t.expose('savedAt', { type: 'DateTime', description: 'When the version was saved: an ISO 8601 timestamp with milliseconds (UTC).' }),
    savedBy: t.exposeString('savedBy', { nullable: true, description: 'Who saved it.' }),
    trigger: t.exposeString('trigger', {
      description: `What made the save: ${valueList(BILL_SAVE_TRIGGERS)} when this service saved it; a loaded dataset may carry labels of its own.`,
    }),
    contentHash: t.exposeString('contentHash', { nullable: true, description: 'Hash of the saved content (sha256:…).' }),
    changes: t.field({ type: BillVersionChangesRef, resolve: (v) => v.changes }),
  }),
});

export const BillVersionPageRef = builder.objectRef<BillVersionPage>('BillVersionPage').implement({
  fields: (t) => ({
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum }), ownerId: t.exposeString('ownerId'),
    versions: t.field({ type: [BillVersionRef], resolve: (p) => p.versions }),
    total: t.exposeInt('total', { description: 'Ready versions.' }), limit: t.exposeInt('limit'), offset: t.exposeInt('offset'),
    hasMore: t.exposeBoolean('hasMore'), pending: t.exposeInt('pending'),
  }),
});

builder.queryField('billVersions', (t) =>
  t.field({
    type: BillVersionPageRef,
    description: 'Ready versions of a BOM or assembly bill, newest first; NOT_FOUND for an unknown owner.',
    authScopes: { read: true },
    args: {
      ownerType: t.arg({ type: BillOwnerTypeEnum, required: true }),
      ownerId: t.arg.string({ required: true }),
      limit: t.arg.int({ required: false, defaultValue: PAGE_DEFAULTS.billVersions, description: `Versions per page, 1–${PAGE_LIMITS.billVersions} (default ${PAGE_DEFAULTS.billVersions}); outside that range is INVALID_INPUT.` }),
      offset: t.arg.int({ required: false, defaultValue: 0, description: 'Versions to skip, ≥ 0 (default 0).' }),
    },
    resolve: (_root, args, ctx) => listBillVersions(ctx, { ownerType: args.ownerType, ownerId: args.ownerId, limit: args.limit, offset: args.offset }),
  }),
);
