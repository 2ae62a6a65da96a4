import type { AssemblyBillView, BomView } from '../../../src/modules/boms/bom-views.ts';
import { listBoms, type BomListPage, type BomStats } from '../../../src/modules/boms/bom-list.service.ts';
import { getAssemblyBill, getBom } from '../../../src/modules/boms/bom.service.ts';
import { PAGE_DEFAULTS, PAGE_LIMITS } from '../../../src/kernel/limits.ts';
import { BOM_LIST_DEFAULTS, BOM_SORTS } from '../../../src/modules/boms/recipe-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { BOM_SORTS_TEXT, BomSortEnum, BomSortOrderEnum, BomStatusEnum, BomStatusFilterEnum, StorefrontStockEnum } from './enums.ts';
import { CostFactorLineRef, RawMaterialLineRef, SubAssemblyLineRef } from './recipe-lines.ts';

/**
 * Complexity of a recipe's line lists. The list multiplier (10) prices lists whose length a client
 * chooses; these hold the recipe as stored, read one batch per tree level, so a BOM tree nested
 * several assemblies deep is priced by a modest branching estimate instead of 10 per level.
 */
const RECIPE_LINES = { field: 1, multiplier: 2 };

export const AssemblyBillRef = builder.objectRef<AssemblyBillView>('AssemblyBill').implement({
  description: 'An assembly bill (sub-assembly) with its base recipe and unit cost.',
  fields: (t) => ({
    assemblyId: t.exposeString('assemblyId'),
    name: t.exposeString('name'),
    onlyConsumePreassembled: t.exposeBoolean('onlyConsumePreassembled', { description: 'Sellable quantities take it only from its pre-assembled shelf.' }),
    leadTimeDays: t.exposeInt('leadTimeDays', { description: 'Planning: whole days from starting a batch to having it (0 = the same day).' }),
    unitCost: t.expose('unitCost', { type: 'Decimal', description: 'Cost of one unit of the assembly bill (base recipe).' }),
    totalRawMaterialCost: t.expose('totalRawMaterialCost', { type: 'Decimal' }),
    totalSubAssemblyCost: t.expose('totalSubAssemblyCost', { type: 'Decimal' }),
    directCostFactorCost: t.expose('directCostFactorCost', { type: 'Decimal' }),
    rawMaterialLines: t.field({ type: [RawMaterialLineRef], complexity: RECIPE_LINES, resolve: (b) => b.rawMaterialLines }),
    subAssemblyLines: t.field({ type: [SubAssemblyLineRef], complexity: RECIPE_LINES, resolve: (b) => b.subAssemblyLines }),
    costFactorLines: t.field({ type: [CostFactorLineRef], complexity: RECIPE_LINES, resolve: (b) => b.costFactorLines }),
  }),
});

export const BomRef = builder.objectRef<BomView>('Bom').implement({
  description: 'A bill of materials: the recipe of a finished good, with costs.',
  fields: (t) => ({
    bomId: t.exposeString('bomId', { description: 'BOM-<digits>' }),
    name: t.exposeString('name'),
    status: t.expose('status', { type: BomStatusEnum }),
    variantId: t.exposeString('variantId', { nullable: true, description: 'Finished good platform variant; null = not platform-linked.' }),
    storefrontStock: t.expose('storefrontStock', { type: StorefrontStockEnum, description: 'Whether and how bomcore sets the finished good\'s available level on the platform.' }),
    leadTimeDays: t.exposeInt('leadTimeDays', { description: 'Planning: whole days from starting a batch to having it (0 = the same day).' }),
    productId: t.exposeString('productId', { nullable: true }),
    sku: t.exposeString('sku', { nullable: true, description: 'The finished good variant sku (null when not platform-linked).' }),
    price: t.expose('price', { type: 'Decimal', nullable: true, description: 'The finished good variant price.' }),
    totalRawMaterialCost: t.expose('totalRawMaterialCost', { type: 'Decimal' }),
    totalSubAssemblyCost: t.expose('totalSubAssemblyCost', { type: 'Decimal' }),
    directCostFactorCost: t.expose('directCostFactorCost', { type: 'Decimal' }),
    totalCost: t.expose('totalCost', { type: 'Decimal' }),
    preAssembledQuantity: t.expose('preAssembledQuantity', { type: 'Decimal', description: 'Pre-assembled finished units, summed over locations.' }),
    rawMaterialLines: t.field({ type: [RawMaterialLineRef], complexity: RECIPE_LINES, resolve: (b) => b.rawMaterialLines }),
    subAssemblyLines: t.field({ type: [SubAssemblyLineRef], complexity: RECIPE_LINES, resolve: (b) => b.subAssemblyLines }),
    costFactorLines: t.field({ type: [CostFactorLineRef], complexity: RECIPE_LINES, resolve: (b) => b.costFactorLines }),
    assemblyBills: t.field({
      type: [AssemblyBillRef],
      description: 'Every assembly bill the base recipe reaches, at any depth, each once (loaded with the BOM; empty on list rows).',
      resolve: (b) => b.assemblyBills,
    }),
  }),
});

const BomStatsRef = builder.objectRef<BomStats>('BomStats').implement({
  description: 'Totals over every BOM of the shop, whatever the filters.',
  fields: (t) => ({
    total: t.exposeInt('total'), active: t.exposeInt('active'), inactive: t.exposeInt('inactive'),
    totalValue: t.expose('totalValue', { type: 'Decimal', description: 'Σ totalCost' }),
    avgCost: t.expose('avgCost', { type: 'Decimal', description: 'totalValue / total (0 when there are none)' }),
    platformLinked: t.exposeInt('platformLinked', { description: 'BOMs whose finished good is a platform variant.' }),
  }),
});

const BomListPageRef = builder.objectRef<BomListPage>('BomListPage').implement({
  fields: (t) => ({
    items: t.field({ type: [BomRef], resolve: (p) => p.items }),
    totalCount: t.exposeInt('totalCount'), page: t.exposeInt('page'), pageSize: t.exposeInt('pageSize'), totalPages: t.exposeInt('totalPages'),
    stats: t.field({ type: BomStatsRef, resolve: (p) => p.stats }),
  }),
});

builder.queryField('bom', (t) =>
  t.field({
    type: BomRef,
    description: 'One BOM with costs and every assembly bill of its recipe. NOT_FOUND for an unknown id.',
    authScopes: { read: true },
    args: { bomId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => getBom(ctx, args.bomId),
  }),
);

builder.queryField('assemblyBill', (t) =>
  t.field({
    type: AssemblyBillRef,
    description: 'One assembly bill with its base recipe and unit cost. NOT_FOUND for an unknown id.',
    authScopes: { read: true },
    args: { assemblyId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => getAssemblyBill(ctx, args.assemblyId),
  }),
);

builder.queryField('boms', (t) =>
  t.field({
    type: BomListPageRef,
    description: `BOMs filtered, sorted (${valueList(BOM_SORTS)}) and paged, with stats over all of them.`,
    authScopes: { read: true },
    args: {
      search: t.arg.string({ required: false }),
      statusFilter: t.arg({ type: BomStatusFilterEnum, required: false, defaultValue: BOM_LIST_DEFAULTS.statusFilter }),
      sortBy: t.arg({ type: BomSortEnum, required: false, description: `${BOM_SORTS_TEXT}.` }),
      sortOrder: t.arg({ type: BomSortOrderEnum, required: false, defaultValue: BOM_LIST_DEFAULTS.sortOrder }),
      page: t.arg.int({ required: false, defaultValue: 1, description: '1-based page number (default 1); below 1 is INVALID_INPUT.' }),
      pageSize: t.arg.int({ required: false, defaultValue: PAGE_DEFAULTS.rows, description: `BOMs per page, 1–${PAGE_LIMITS.rows} (default ${PAGE_DEFAULTS.rows}); outside that range is INVALID_INPUT.` }),
    },
    resolve: (_root, args, ctx) => listBoms(ctx, {
      search: args.search ?? null, statusFilter: args.statusFilter ?? BOM_LIST_DEFAULTS.statusFilter, sortBy: args.sortBy ?? null,
      sortOrder: args.sortOrder ?? BOM_LIST_DEFAULTS.sortOrder, page: args.page, pageSize: args.pageSize,
    }),
  }),
);
