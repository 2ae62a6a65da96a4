import { randomUUID } from 'node:crypto';
import { parseDecimalInput } from '../../kernel/decimals.ts';
import { DomainError, type FieldError, type MissingRef } from '../../kernel/domain-error.ts';
import { ZERO, type Exact } from '../../kernel/numbers/index.ts';
import { recordWorkOrderEvent } from './work-order-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { buildBreakdowns } from '../orders/breakdown.service.ts';
import { findPeopleReferences } from '../people/references.ts';
import { finishedGoodVariants } from '../boms/bom-views.ts';
import type { BillKey } from '../boms/engine/index.ts';
import { archivedBomIds, nodeStates, type NodeState } from '../boms/recipe-references.ts';
import { headerFieldErrors, throwIfInvalid } from './header-fields.ts';
import type { HeaderPatch } from './header-update.service.ts';
import { workOrderShortId } from './short-ids.ts';
import { insertLifecycleEvent, insertWorkOrder, nextShortIdNumber, type NewWorkOrder } from './work-order.repository.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../kernel/limits.ts';
import { WORK_ORDER_STATUSES, type WorkOrderSourceType } from './work-order-vocabulary.ts';

/** Where every new work order starts: the first state of the state table. */
export const INITIAL_STATUS = WORK_ORDER_STATUSES[0];
/** The limits of src/kernel/limits.ts, as the create's own checks name them. */
export const CREATE_LIMITS = { items: LIST_LIMITS.items, manualMaterials: LIST_LIMITS.items, note: STRING_LIMITS.text } as const;

export interface NewItemInput { bomId?: string | null; assemblyId?: string | null; quantity: string }
export interface NewManualMaterialInput { variantId: string; quantity: string; locationId?: string | null; note?: string | null }

/** The header fields of an edit (HeaderPatch), with a required name and source, plus what only a new work order has. */
export interface CreateWorkOrderInput extends Omit<HeaderPatch, 'expectedUpdatedAt' | 'name'> {
  name: string;
  sourceType: WorkOrderSourceType;
  items?: NewItemInput[] | null;
  manualMaterials?: NewManualMaterialInput[] | null;
  /** Who created it, for the first lifecycle event. */
  actorUserId?: string | null;
  actorDisplayName?: string | null;
}

interface CheckedItem { field: string; bill: BillKey; quantity: string }
interface CheckedManual { variantId: string; quantity: string; locationId: string | null; note: string | null }

/** A quantity that must be exact and > 0; pushes a field error otherwise. */
function positiveQuantity(value: string, field: string, errors: FieldError[]): string | null {
  const q = parseDecimalInput(value, field, errors);
  if (q && !q.gt(0)) {
    errors.push({ field, message: 'must be greater than 0' });
    return null;
  }
  return q ? q.toFixed() : null;
}

/** What each source type asks of the rest of the input. */
function sourceErrors(input: CreateWorkOrderInput, items: readonly BillKey[]): FieldError[] {
  const errors: FieldError[] = [];
  const kinds = new Set(items.map((i) => i.ownerType));
  switch (input.sourceType) {
    case 'bom':
      if (items.length === 0 || kinds.has('sub_assembly')) errors.push({ field: 'items', message: 'a bom work order builds at least one item, each naming a bomId' });
      break;
    case 'sa':
      if (items.length === 0 || kinds.has('bom')) errors.push({ field: 'items', message: 'an sa work order builds at least one item, each naming an assemblyId' });
      break;
    case 'orders':
      if ((input.sourceOrderIds ?? []).length === 0) errors.push({ field: 'sourceOrderIds', message: 'an orders work order names at least one order' });
      break;
    case 'flow':
      if (!input.sourceFlowId) errors.push({ field: 'sourceFlowId', message: 'a flow work order names its flow' });
      break;
    case 'empty':
      break;
  }
  return errors;
}

/** Shape and value checks, before any read: every field at fault in one INVALID_INPUT. */
function validate(input: CreateWorkOrderInput): { items: CheckedItem[]; manual: CheckedManual[] } {
  const errors = headerFieldErrors({ ...input, priority: input.priority === null ? undefined : input.priority });
  if (typeof input.name !== 'string') errors.push({ field: 'name', message: 'is required' });
  const itemInputs = input.items ?? [];
  const manualInputs = input.manualMaterials ?? [];
  if (itemInputs.length > CREATE_LIMITS.items) errors.push({ field: 'items', message: `at most ${CREATE_LIMITS.items} items` });
  if (manualInputs.length > CREATE_LIMITS.manualMaterials) errors.push({ field: 'manualMaterials', message: `at most ${CREATE_LIMITS.manualMaterials} lines` });

  const items: CheckedItem[] = [];
  // Every bill named, whatever its quantity: the source type is judged on what was asked for.
  const bills: BillKey[] = [];
  itemInputs.forEach((item, k) => {
    const field = `items[${k}]`;
    const named = [item.bomId, item.assemblyId].filter((v) => typeof v === 'string' && v !== '');
    if (named.length !== 1) errors.push({ field, message: 'name exactly one of bomId or assemblyId' });
    const quantity = positiveQuantity(item.quantity, `${field}.quantity`, errors);
    if (named.length !== 1) return;
    const bill: BillKey = item.bomId ? { ownerType: 'bom', ownerId: item.bomId } : { ownerType: 'sub_assembly', ownerId: item.assemblyId! };
    bills.push(bill);
    if (quantity) items.push({ field: `${field}.${item.bomId ? 'bomId' : 'assemblyId'}`, bill, quantity });
  });
  const manual: CheckedManual[] = [];
  manualInputs.forEach((line, k) => {
    const field = `manualMaterials[${k}]`;
    if (line.variantId.trim() === '') errors.push({ field: `${field}.variantId`, message: 'must be a material variantId' });
    if (typeof line.note === 'string' && line.note.length > CREATE_LIMITS.note) errors.push({ field: `${field}.note`, message: `must be at most ${CREATE_LIMITS.note} characters` });
    const quantity = positiveQuantity(line.quantity, `${field}.quantity`, errors);
    if (quantity) manual.push({ variantId: line.variantId, quantity, locationId: line.locationId ?? null, note: line.note ?? null });
  });
  errors.push(...sourceErrors(input, bills));
  throwIfInvalid(errors);
  return { items, manual };
}

/** The catalogue objects the input names: whether each exists and whether it is archived. */
async function catalogueStates(ctx: ShopContext, items: readonly CheckedItem[], manual: readonly CheckedManual[]): Promise<(kind: 'bom' | 'sub' | 'raw', id: string) => NodeState> {
  const unique = (ids: string[]) => [...new Set(ids)];
  const bomIds = unique(items.filter((i) => i.bill.ownerType === 'bom').map((i) => i.bill.ownerId));
  const [nodes, boms, archivedBoms] = await Promise.all([
    nodeStates(ctx, { raw: unique(manual.map((m) => m.variantId)), sub: unique(items.filter((i) => i.bill.ownerType === 'sub_assembly').map((i) => i.bill.ownerId)), cost: [] }),
    finishedGoodVariants(ctx, bomIds),
    archivedBomIds(ctx, bomIds),
  ]);
  return (kind, id) => (kind === 'bom'
    ? { exists: boms.has(id), archived: archivedBoms.has(id) }
    : nodes.get(`${kind}:${id}`) ?? { exists: false, archived: false });
}

/**
 * Every reference the input names, checked at once (a constant number of reads whatever the
 * number of items): an unknown BOM, assembly bill, material, location, order, flow, task or
 * assignee is INVALID_INPUT naming each field (and `missing` naming each object); an archived
 * BOM, assembly bill or material, or a retired assignee, is INVALID_INPUT too — archived and
 * retired things keep their history but take no new work.
 */
async function checkReferences(ctx: ShopContext, input: CreateWorkOrderInput, items: readonly CheckedItem[], manual: readonly CheckedManual[]): Promise<void> {
  const named: [field: string, id: string | null | undefined][] = [
    ['productionLocationId', input.productionLocationId], ['defaultConsumptionLocationId', input.defaultConsumptionLocationId],
    ...manual.map((m, k): [string, string | null] => [`manualMaterials[${k}].locationId`, m.locationId]),
  ];
  const locationFields = named.filter((pair): pair is [string, string] => typeof pair[1] === 'string');
  const orderIds = input.sourceOrderIds ?? [];
  const [people, locations, orders, stateOf] = await Promise.all([
    findPeopleReferences(ctx, { assigneeId: input.assigneeId ?? null, flowId: input.sourceFlowId ?? null, taskId: input.sourceTodoId ?? null }),
    locationFields.length === 0 ? [] : ctx.platform.listLocations(),
    orderIds.length === 0 ? [] : ctx.platform.getOrders(orderIds),
    catalogueStates(ctx, items, manual),
  ]);
  const errors: FieldError[] = [];
  const missing: MissingRef[] = [];
  const unknown = (field: string, kind: string, id: string) => {
    errors.push({ field, message: `unknown ${kind} ${id}` });
    if (!missing.some((m) => m.kind === kind && m.id === id)) missing.push({ kind, id });
  };
  const catalogue = (field: string, node: 'bom' | 'sub' | 'raw', kind: string, id: string) => {
    const state = stateOf(node, id);
    if (!state.exists) unknown(field, kind, id);
    else if (state.archived) errors.push({ field, message: `${kind} ${id} is archived; restore it or choose another` });
  };
  for (const i of items) {
    if (i.bill.ownerType === 'bom') catalogue(i.field, 'bom', 'bom', i.bill.ownerId);
    else catalogue(i.field, 'sub', 'assembly bill', i.bill.ownerId);
  }
  manual.forEach((m, k) => catalogue(`manualMaterials[${k}].variantId`, 'raw', 'material', m.variantId));
  const knownLocations = new Set(locations.map((l) => l.locationId));
  for (const [field, id] of locationFields) if (!knownLocations.has(id)) unknown(field, 'location', id);
  const knownOrders = new Set(orders.map((o) => o.orderId));
  orderIds.forEach((id, k) => {
    if (!knownOrders.has(id)) unknown(`sourceOrderIds[${k}]`, 'order', id);
  });
  if (input.sourceFlowId && !people.flow) unknown('sourceFlowId', 'flow', input.sourceFlowId);
  if (input.sourceTodoId && !people.task) unknown('sourceTodoId', 'task', input.sourceTodoId);
  if (input.assigneeId && !people.assignee) unknown('assigneeId', 'assignee', input.assigneeId);
  else if (input.assigneeId && people.assignee?.active === false) {
    errors.push({ field: 'assigneeId', message: `assignee ${input.assigneeId} is retired; choose an active one` });
  }
  if (errors.length > 0) {
    throw DomainError.invalidFields(errors, missing.length > 0 ? { missing } : {});
  }
}

/**
 * The items of an `orders` work order sent without items: one per BOM the orders contain (a line
 * whose variant is a BOM's finished good), the ordered quantities summed over the orders, in the
 * orders' line order — the BOMs of the orders' breakdowns. Unknown orders are left to the
 * reference check, which names them.
 */
async function itemsFromOrders(ctx: ShopContext, orderIds: readonly string[]): Promise<CheckedItem[]> {
  const breakdowns = await buildBreakdowns(ctx, await ctx.platform.getOrders(orderIds), null);
  const quantities = new Map<string, Exact>();
  for (const order of breakdowns) {
    for (const bom of order.boms) quantities.set(bom.bomId, (quantities.get(bom.bomId) ?? ZERO).plus(bom.orderQuantity));
  }
  return [...quantities].map(([bomId, quantity]) => ({ field: 'sourceOrderIds', bill: { ownerType: 'bom', ownerId: bomId }, quantity: quantity.toFixed() }));
}

/**
 * Creates a work order in the first state of the state table with its items and manual
 * materials, a fresh `wo_<uuid>` id, the shop's next short id (`WO-0042`) and a first lifecycle
 * event (null → draft). An `orders` work order sent without items builds the BOMs its orders
 * contain. All or nothing, in one transaction; a constant number of statements whatever the
 * number of items or lines.
 */
export async function createWorkOrder(ctx: ShopContext, input: CreateWorkOrderInput): Promise<{ workOrderId: string; shortId: string; updatedAt: Date }> {
  const { items: sent, manual } = validate(input);
  const fromOrders = input.sourceType === 'orders' && sent.length === 0;
  return inShopTransaction(ctx, async (tx) => {
    const items = fromOrders ? await itemsFromOrders(tx, input.sourceOrderIds ?? []) : sent;
    await checkReferences(tx, input, items, manual);
    if (fromOrders && items.length === 0) throw DomainError.invalid('items', 'the orders contain no BOM product; name the items to build');
    const shortId = workOrderShortId(await nextShortIdNumber(tx.em, tx.shopId));
    const createdAt = new Date();
    const wo: NewWorkOrder = {
      workOrderId: `wo_${randomUUID()}`, shortId, name: input.name.trim(), description: input.description ?? null, notes: input.notes ?? null,
      status: INITIAL_STATUS, priority: input.priority ?? 'normal', dueDate: input.dueDate ?? null, assigneeId: input.assigneeId ?? null,
      productionLocationId: input.productionLocationId ?? null, defaultConsumptionLocationId: input.defaultConsumptionLocationId ?? null,
      sourceType: input.sourceType, sourceFlowId: input.sourceFlowId ?? null, sourceTodoId: input.sourceTodoId ?? null,
      sourceOrderIds: input.sourceOrderIds ?? [], tags: input.tags ?? [], plannedLaborCost: input.plannedLaborCost ?? null,
      actualLaborCost: input.actualLaborCost ?? null, createdAt,
      // Item ids count from 1 within the work order, as datasets number them.
      items: items.map((i, k) => ({ itemId: `woi_${k + 1}`, ownerType: i.bill.ownerType, ownerId: i.bill.ownerId, quantity: i.quantity })),
      manualMaterials: manual,
    };
    await Promise.all([
      insertWorkOrder(tx.em, tx.shopId, wo),
      insertLifecycleEvent(tx.em, tx.shopId, wo.workOrderId, {
        event_id: `lce_${randomUUID()}`, from_status: null, to_status: INITIAL_STATUS, note: null, actor_user_id: input.actorUserId ?? null,
        actor_display_name: input.actorDisplayName ?? null, created_at: createdAt,
      }),
      recordWorkOrderEvent(tx, 'work_order.created', wo.workOrderId, createdAt, { shortId, status: INITIAL_STATUS, name: wo.name }),
    ]);
    return { workOrderId: wo.workOrderId, shortId, updatedAt: createdAt };
  });
}
