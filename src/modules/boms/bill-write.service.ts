import { sql, type Updateable } from 'kysely';
import { bulkInsert } from '../../db/bulk-insert.ts';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { exact } from '../../kernel/numbers/index.ts';
import { recordEvents } from '../events/event-log.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { recordPendingBillVersion } from './bill-version-write.ts';
import { ASSEMBLY_IDS, BOM_IDS, insertCatalogRow } from './catalog-ids.ts';
import { InputErrors } from './catalog-input.ts';
import { refreshCostRollup } from './cost-rollup.repository.ts';
import type { BillKey, EngineLine } from './engine/index.ts';
import { nodeStates, refuseArchiveWhileUsed, refuseRecipeCycle, type NodeKind } from './recipe-references.ts';
import type { BillSaveTrigger, BomStatus, StorefrontStockMode } from './recipe-vocabulary.ts';
import { enqueueStorefrontRecomputes, storefrontChangeOf } from './storefront-recomputes.repository.ts';
import { recipesSql, type RecipesTables } from './tables.ts';

// Create, edit and archive assembly bills and BOMs. Every save runs in one transaction that writes
// the bill, brings the stored cost roll-up up to date and freezes a pending bill version; the
// statement count does not depend on the number of lines.

export interface RawLineInput { nodeId: string; quantity: string; wastePercentage?: string | null }
export interface SubLineInput { nodeId: string; quantity: string }
export interface CostLineInput { costFactorId: string; quantity: string }

/** Recipe lists: a list sent replaces that list of the bill; absent (or null) keeps it (empty on create). */
export interface RecipeInput {
  rawMaterialLines?: readonly RawLineInput[] | null;
  subAssemblyLines?: readonly SubLineInput[] | null;
  costFactorLines?: readonly CostLineInput[] | null;
}
export interface AssemblyBillInput extends RecipeInput { name?: string | null; onlyConsumePreassembled?: boolean | null; leadTimeDays?: number | null }
export interface BomInput extends RecipeInput {
  name?: string | null; status?: BomStatus | null; variantId?: string | null; leadTimeDays?: number | null;
  /** Whether and how bomcore sets the finished good's storefront level (absent: manual on create, kept on edit). */
  storefrontStock?: StorefrontStockMode | null;
}

/** Who saved and why, recorded on the bill version. */
export interface SaveAuthor { savedBy: string | null }
export interface BillSaveResult extends BillKey { version: number | null }

interface NewLine { lineType: NodeKind; nodeId: string; quantity: string; waste: string; field: string }

const LIST_FIELDS = { raw: 'rawMaterialLines', sub: 'subAssemblyLines', cost: 'costFactorLines' } as const;
const NODE_LABELS = { raw: 'material', sub: 'assembly bill', cost: 'cost factor' } as const;

/** The lists sent, checked field by field: line type → its new lines (types not sent are absent). */
function readRecipe(errors: InputErrors, input: RecipeInput): Map<NodeKind, NewLine[]> {
  const lists = new Map<NodeKind, NewLine[]>();
  const read = (lineType: NodeKind, lines: readonly { nodeId: string; quantity: string; waste?: string | null }[] | null | undefined) => {
    if (lines === null || lines === undefined) return;
    const list = LIST_FIELDS[lineType];
    errors.lineCount(list, lines);
    const seen = new Map<string, number>();
    lists.set(lineType, lines.map((line, i) => {
      const field = `${list}[${i}]`;
      const idField = lineType === 'cost' ? `${field}.costFactorId` : `${field}.nodeId`;
      if (line.nodeId.trim() === '') errors.add(idField, 'must not be empty');
      // A node named twice in one list would make location rules (which target a node) ambiguous.
      const first = seen.get(line.nodeId);
      if (first !== undefined) errors.add(idField, `"${line.nodeId}" is already line ${first} of ${list}`);
      else seen.set(line.nodeId, i);
      const quantity = errors.decimal(`${field}.quantity`, line.quantity, 'positive') ?? '0';
      const waste = line.waste === null || line.waste === undefined ? '0' : (errors.decimal(`${field}.wastePercentage`, line.waste, 'waste') ?? '0');
      return { lineType, nodeId: line.nodeId, quantity, waste, field: idField };
    }));
  };
  read('raw', input.rawMaterialLines?.map((l) => ({ nodeId: l.nodeId, quantity: l.quantity, waste: l.wastePercentage })));
  read('sub', input.subAssemblyLines);
  read('cost', input.costFactorLines?.map((l) => ({ nodeId: l.costFactorId, quantity: l.quantity })));
  return lists;
}

/**
 * Every node a new line names must exist in the shop; an archived one only if the bill already
 * names it (existing references keep working, new ones are refused). One statement (two on an edit:
 * the bill's current lines).
 */
async function checkNodes(tx: ShopContext, key: BillKey, lists: Map<NodeKind, NewLine[]>, isNew: boolean): Promise<void> {
  const lines = [...lists.values()].flat();
  if (lines.length === 0) return;
  const ids = (kind: NodeKind) => lines.filter((l) => l.lineType === kind).map((l) => l.nodeId);
  const states = await nodeStates(tx, { raw: ids('raw'), sub: ids('sub'), cost: ids('cost') });
  const current = isNew ? [] : await runSql(tx.em, recipesSql.selectFrom('recipe_lines').select(['line_type', 'node_id'])
    .where('shop_id', '=', tx.shopId).where('owner_type', '=', key.ownerType).where('owner_id', '=', key.ownerId));
  const named = new Set(current.map((r) => `${r.line_type}:${r.node_id}`));
  const errors = new InputErrors();
  for (const line of lines) {
    const state = states.get(`${line.lineType}:${line.nodeId}`);
    if (!state) errors.add(line.field, `unknown ${NODE_LABELS[line.lineType]} "${line.nodeId}"`);
    else if (state.archived && !named.has(`${line.lineType}:${line.nodeId}`)) {
      errors.add(line.field, `${NODE_LABELS[line.lineType]} "${line.nodeId}" is archived: it cannot be added to a recipe`);
    }
  }
  errors.throwIfAny();
}

/** Replaces the sent lists of the bill's lines: one delete (edits only) and one insert. */
async function writeLines(tx: ShopContext, key: BillKey, lists: Map<NodeKind, NewLine[]>, isNew: boolean): Promise<void> {
  if (lists.size === 0) return;
  if (!isNew) {
    await runSql(tx.em, recipesSql.deleteFrom('recipe_lines')
      .where('shop_id', '=', tx.shopId).where('owner_type', '=', key.ownerType).where('owner_id', '=', key.ownerId)
      .where('line_type', 'in', [...lists.keys()]));
  }
  const rows = [...lists.values()].flatMap((lines) =>
    lines.map((l, position) => [tx.shopId, key.ownerType, key.ownerId, l.lineType, position, l.nodeId, l.quantity, l.waste]));
  await bulkInsert(tx.em, 'recipe_lines', ['shop_id', 'owner_type', 'owner_id', 'line_type', 'position', 'node_id', 'quantity', 'waste_percentage'], rows);
}

/** An assembly bill's new sub-assembly lines must not lead back to it (at any location). */
async function checkCycles(tx: ShopContext, key: BillKey, lists: Map<NodeKind, NewLine[]>): Promise<void> {
  const subs = lists.get('sub');
  if (key.ownerType !== 'sub_assembly' || !subs || subs.length === 0) return;
  const current = await runSql(tx.em, recipesSql.selectFrom('recipe_lines')
    .select([sql<'raw' | 'cost'>`line_type`.as('line_type'), 'node_id', sql<string>`quantity::text`.as('quantity'),
      sql<string>`waste_percentage::text`.as('waste_percentage'), 'position'])
    .where('shop_id', '=', tx.shopId).where('owner_type', '=', 'sub_assembly').where('owner_id', '=', key.ownerId).where('line_type', '<>', 'sub'));
  const lines: EngineLine[] = [
    ...current.map((r) => ({ lineType: r.line_type, nodeId: r.node_id, quantity: exact(r.quantity), wastePercentage: exact(r.waste_percentage), position: Number(r.position), changedBy: null })),
    ...subs.map((l, position) => ({ lineType: 'sub' as const, nodeId: l.nodeId, quantity: exact(l.quantity), wastePercentage: exact(0), position, changedBy: null })),
  ];
  await refuseRecipeCycle(tx, key.ownerId, { lines }, 'subAssemblyLines');
}

/** The finished good of a BOM: a platform variant that is no other BOM's finished good. */
async function checkFinishedGood(tx: ShopContext, bomId: string, variantId: string | null | undefined): Promise<void> {
  if (variantId === null || variantId === undefined) return;
  if (!/^\d+$/.test(variantId)) throw DomainError.invalid('variantId', `must be a numeric platform variant id, got ${JSON.stringify(variantId)}`);
  const [variant] = await tx.platform.getVariants([variantId]);
  if (!variant) throw DomainError.invalid('variantId', `unknown platform variant "${variantId}"`);
  // An order line finds its BOM through the variant, so one variant has one BOM.
  const [other] = await runSql(tx.em, recipesSql.selectFrom('boms').select('bom_id')
    .where('shop_id', '=', tx.shopId).where('variant_id', '=', variantId).where('bom_id', '<>', bomId).limit(1));
  if (other) throw DomainError.invalid('variantId', `variant "${variantId}" is already the finished good of ${other.bom_id}`);
}

/** Locks the bill's row for the save (NOT_FOUND when the shop has no such bill); returns whether it is archived. */
export async function lockBill(tx: ShopContext, key: BillKey): Promise<{ archived: boolean }> {
  const archived = sql<boolean>`archived_at is not null`.as('archived');
  const [row] = await runSql(tx.em, key.ownerType === 'bom'
    ? recipesSql.selectFrom('boms').select(archived).where('shop_id', '=', tx.shopId).where('bom_id', '=', key.ownerId).forUpdate()
    : recipesSql.selectFrom('assembly_bills').select(archived).where('shop_id', '=', tx.shopId).where('assembly_id', '=', key.ownerId).forUpdate());
  if (!row) throw DomainError.notFound(key.ownerType === 'bom' ? 'bom' : 'assembly bill', key.ownerId);
  return { archived: Boolean(row.archived) };
}

/** `update <table> set …` of the header fields sent (none: no statement). */
type HeaderSets = Updateable<RecipesTables['boms']> | Updateable<RecipesTables['assembly_bills']>;

async function updateHeader(tx: ShopContext, key: BillKey, sets: HeaderSets): Promise<void> {
  if (Object.keys(sets).length === 0) return;
  await runSql(tx.em, key.ownerType === 'bom'
    ? recipesSql.updateTable('boms').set(sets as Updateable<RecipesTables['boms']>).where('shop_id', '=', tx.shopId).where('bom_id', '=', key.ownerId)
    : recipesSql.updateTable('assembly_bills').set(sets as Updateable<RecipesTables['assembly_bills']>)
      .where('shop_id', '=', tx.shopId).where('assembly_id', '=', key.ownerId));
}

/**
 * The tail of every save, in its transaction: the cost roll-up of the bill and everything above it
 * (when its lines changed, or for a BOM whose list entry may have changed) and a pending version.
 */
async function finishSave(tx: ShopContext, key: BillKey, rollup: boolean, trigger: BillSaveTrigger, author: SaveAuthor): Promise<BillSaveResult> {
  if (rollup) await refreshCostRollup(tx, { bills: [key] });
  const version = await recordPendingBillVersion(tx, key, trigger, author.savedBy);
  // The recipe, the mode or the finished good changed: the storefront levels that follow it are recomputed.
  await enqueueStorefrontRecomputes(tx.em, tx.shopId, storefrontChangeOf(key));
  await recordEvents(tx, [{ type: 'bom.updated', resource: `bill:${key.ownerType}:${key.ownerId}`, data: { ownerType: key.ownerType, ownerId: key.ownerId, change: trigger, version } }]);
  return { ...key, version };
}

function checkHeaderText(errors: InputErrors, name: string | null | undefined, required: boolean): void {
  if (name === null) errors.add('name', 'must not be null');
  else if (required && name === undefined) errors.add('name', 'is required');
  else errors.text('name', name, { required: true });
}

export async function createAssemblyBill(ctx: ShopContext, assemblyId: string | null, input: AssemblyBillInput, author: SaveAuthor): Promise<BillSaveResult> {
  const errors = new InputErrors();
  if (assemblyId !== null) errors.id('assemblyId', assemblyId, /^ASM-.+$/, 'ASM-<id>');
  checkHeaderText(errors, input.name, true);
  const leadTimeDays = errors.leadTimeDays('leadTimeDays', input.leadTimeDays);
  const lists = readRecipe(errors, input);
  errors.throwIfAny();
  return inShopTransaction(ctx, async (tx) => {
    const id = await insertCatalogRow(tx, ASSEMBLY_IDS, assemblyId,
      { name: input.name!, only_consume_preassembled: input.onlyConsumePreassembled ?? false, lead_time_days: leadTimeDays ?? 0 });
    const key: BillKey = { ownerType: 'sub_assembly', ownerId: id };
    await checkNodes(tx, key, lists, true);
    // A new bill cannot be part of a cycle (nothing names it yet), unless the client's id is named by its own lines.
    await checkCycles(tx, key, lists);
    await writeLines(tx, key, lists, true);
    return finishSave(tx, key, true, 'create', author);
  });
}

export async function updateAssemblyBill(ctx: ShopContext, assemblyId: string, input: AssemblyBillInput, author: SaveAuthor): Promise<BillSaveResult> {
  const errors = new InputErrors();
  checkHeaderText(errors, input.name, false);
  if (input.onlyConsumePreassembled === null) errors.add('onlyConsumePreassembled', 'must not be null');
  const leadTimeDays = errors.leadTimeDays('leadTimeDays', input.leadTimeDays);
  const lists = readRecipe(errors, input);
  errors.throwIfAny();
  const key: BillKey = { ownerType: 'sub_assembly', ownerId: assemblyId };
  return inShopTransaction(ctx, async (tx) => {
    await lockBill(tx, key);
    await checkNodes(tx, key, lists, false);
    await checkCycles(tx, key, lists);
    const sets: Updateable<RecipesTables['assembly_bills']> = {};
    if (input.name !== undefined) sets.name = input.name!;
    if (input.onlyConsumePreassembled !== undefined) sets.only_consume_preassembled = input.onlyConsumePreassembled!;
    if (leadTimeDays !== undefined) sets.lead_time_days = leadTimeDays;
    await updateHeader(tx, key, sets);
    await writeLines(tx, key, lists, false);
    return finishSave(tx, key, lists.size > 0, 'update', author);
  });
}

export async function createBom(ctx: ShopContext, bomId: string | null, input: BomInput, author: SaveAuthor): Promise<BillSaveResult> {
  const errors = new InputErrors();
  if (bomId !== null) errors.id('bomId', bomId, /^BOM-\d+$/, 'BOM-<digits>');
  checkHeaderText(errors, input.name, true);
  if (input.status === null) errors.add('status', 'must not be null');
  if (input.storefrontStock === null) errors.add('storefrontStock', 'must not be null');
  const leadTimeDays = errors.leadTimeDays('leadTimeDays', input.leadTimeDays);
  const lists = readRecipe(errors, input);
  errors.throwIfAny();
  return inShopTransaction(ctx, async (tx) => {
    const id = await insertCatalogRow(tx, BOM_IDS, bomId,
      { name: input.name!, status: input.status ?? 'active', variant_id: input.variantId ?? null, storefront_stock: input.storefrontStock ?? 'manual', lead_time_days: leadTimeDays ?? 0 });
    const key: BillKey = { ownerType: 'bom', ownerId: id };
    await checkFinishedGood(tx, id, input.variantId);
    await checkNodes(tx, key, lists, true);
    await writeLines(tx, key, lists, true);
    return finishSave(tx, key, true, 'create', author);
  });
}

export async function updateBom(ctx: ShopContext, bomId: string, input: BomInput, author: SaveAuthor): Promise<BillSaveResult> {
  const errors = new InputErrors();
  checkHeaderText(errors, input.name, false);
  if (input.status === null) errors.add('status', 'must not be null');
  if (input.storefrontStock === null) errors.add('storefrontStock', 'must not be null');
  const leadTimeDays = errors.leadTimeDays('leadTimeDays', input.leadTimeDays);
  const lists = readRecipe(errors, input);
  errors.throwIfAny();
  const key: BillKey = { ownerType: 'bom', ownerId: bomId };
  return inShopTransaction(ctx, async (tx) => {
    await lockBill(tx, key);
    await checkFinishedGood(tx, bomId, input.variantId);
    await checkNodes(tx, key, lists, false);
    const sets: Updateable<RecipesTables['boms']> = {};
    if (input.name !== undefined) sets.name = input.name!;
    if (input.status !== undefined) sets.status = input.status!;
    if (input.variantId !== undefined) sets.variant_id = input.variantId;
    if (input.storefrontStock !== undefined) sets.storefront_stock = input.storefrontStock!;
    if (leadTimeDays !== undefined) sets.lead_time_days = leadTimeDays;
    await updateHeader(tx, key, sets);
    await writeLines(tx, key, lists, false);
    // Name, status and finished good are columns of the BOM list, so any BOM edit refreshes its entry.
    return finishSave(tx, key, Object.keys(sets).length > 0 || lists.size > 0, 'update', author);
  });
}

/**
 * Archives or restores a bill. An assembly bill still reached by an active BOM cannot be archived
 * (CONFLICT naming the BOMs); a BOM can always be. Setting the state it already has saves nothing
 * (version null).
 */
export async function setBillArchived(ctx: ShopContext, key: BillKey, archived: boolean, author: SaveAuthor): Promise<BillSaveResult> {
  return inShopTransaction(ctx, async (tx) => {
    const current = await lockBill(tx, key);
    if (current.archived === archived) return { ...key, version: null };
    if (archived && key.ownerType === 'sub_assembly') await refuseArchiveWhileUsed(tx, 'sub', key.ownerId, 'assembly bill');
    await updateHeader(tx, key, { archived_at: archived ? new Date() : null });
    // An archived BOM leaves the list (its entry is dropped by the refresh); its costs stay current.
    return finishSave(tx, key, key.ownerType === 'bom', archived ? 'archive' : 'restore', author);
  });
}
