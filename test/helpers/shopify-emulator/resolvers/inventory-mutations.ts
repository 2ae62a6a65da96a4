import { getDirectiveValues, GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { requireScope, type EmulatorContext } from '../context.ts';
import { legacyId } from '../gid.ts';
import type { AdjustmentChangeRecord, AdjustmentGroupRecord, LevelRecord } from '../records.ts';

interface ChangeInput {
  inventoryItemId: string;
  locationId: string;
  delta: number;
  changeFromQuantity?: number | null;
  ledgerDocumentUri?: string | null;
}

interface AdjustInput {
  name: string;
  reason: string;
  referenceDocumentUri?: string | null;
  changes: ChangeInput[];
}

/** Reasons Shopify accepts for quantity changes (shopify.dev, inventory states: "possible reasons"). */
export const ADJUSTMENT_REASONS = new Set([
  'correction', 'cycle_count_available', 'damaged', 'movement_created', 'movement_updated', 'movement_received', 'movement_canceled',
  'other', 'promotion', 'quality_control', 'received', 'reservation_created', 'reservation_deleted', 'reservation_updated',
  'restock', 'safety_stock', 'shrinkage',
]);

const LIMIT = 2_000_000_000;

export type UserError = { field: string[]; message: string; code: string };
type Applied = { group: AdjustmentGroupRecord | null; userErrors: UserError[] };

/** What an @idempotent key remembers: the input it came with and the answer it got. */
export interface IdempotentEntry {
  fingerprint: string;
  group: AdjustmentGroupRecord | null;
  userErrors: UserError[];
}

/** The key of the field's @idempotent directive, variables applied. */
export function idempotencyKey(info: GraphQLResolveInfo): string | null {
  const directive = info.schema.getDirective('idempotent');
  const node = info.fieldNodes[0];
  if (!directive || !node) return null;
  const values = getDirectiveValues(directive, node, info.variableValues) as { key?: string } | undefined;
  return values?.key ?? null;
}

export function inventoryAdjustQuantities(_: unknown, args: { input: AdjustInput }, ctx: EmulatorContext, info: GraphQLResolveInfo) {
  requireScope(ctx, 'write_inventory', 'inventoryAdjustQuantities');
  // Mandatory since 2026-04: Shopify refuses the call at run time (the schema cannot say so):
  // https://shopify.dev/docs/api/admin-graphql/2026-10/mutations/inventoryAdjustQuantities, https://shopify.dev/docs/api/usage/idempotent-requests
  return idempotentMutation('inventoryAdjustQuantities', args.input, ctx, info, apply, payload);
}

/**
 * A mutation under Shopify's @idempotent directive (https://shopify.dev/docs/api/usage/idempotent-requests):
 * the key is required and not blank; a key seen before replays its first answer, is refused with
 * other parameters (IDEMPOTENCY_KEY_PARAMETER_MISMATCH) and after a failed attempt
 * (IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED). `apply` runs once per key.
 */
export function idempotentMutation<I, P>(operation: string, input: I, ctx: EmulatorContext, info: GraphQLResolveInfo,
  apply: (input: I, key: string, ctx: EmulatorContext) => Applied,
  payload: (group: AdjustmentGroupRecord | null, userErrors: UserError[]) => P): P {
  const key = idempotencyKey(info);
  if (key === null) throw new GraphQLError('The @idempotent directive is required for this mutation.', { extensions: { code: 'BAD_REQUEST' } });
  if (key.trim() === '') throw new GraphQLError('The idempotency key cannot be an empty string or whitespace only.', { extensions: { code: 'BAD_REQUEST' } });
  const fingerprint = JSON.stringify([operation, input]);
  const seen = ctx.shop.idempotency.get(key);
  if (seen) {
    if (seen.fingerprint !== fingerprint) {
      return payload(null, [{ field: ['input'], message: 'The same idempotency key cannot be used with different operation parameters.', code: 'IDEMPOTENCY_KEY_PARAMETER_MISMATCH' }]);
    }
    if (seen.userErrors.length) {
      return payload(null, [{ field: ['input'], message: 'A previous request with this idempotency key failed. Retry with a new idempotency key.', code: 'IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED' }]);
    }
    return payload(seen.group, []);
  }
  const { group, userErrors } = apply(input, key, ctx);
  ctx.shop.idempotency.set(key, { fingerprint, group, userErrors });
  return payload(group, userErrors);
}

function payload(group: AdjustmentGroupRecord | null, userErrors: UserError[]) {
  return { inventoryAdjustmentGroup: group, userErrors: userErrors.map((e) => ({ ...e, __typename: 'InventoryAdjustQuantitiesUserError' })) };
}

/** Checks every change first and applies all or none, as Shopify does. */
function apply(input: AdjustInput, key: string, ctx: EmulatorContext): { group: AdjustmentGroupRecord | null; userErrors: UserError[] } {
  const store = ctx.shop.store;
  const errors: UserError[] = [];
  if (input.name !== 'available') {
    const known = ['damaged', 'quality_control', 'reserved', 'safety_stock', 'incoming', 'on_hand'].includes(input.name);
    errors.push(known
      ? { field: ['input', 'changes', '0', 'ledgerDocumentUri'], message: 'A ledger document URI is required except when adjusting available.', code: 'INVALID_QUANTITY_DOCUMENT' }
      : { field: ['input', 'name'], message: 'The specified quantity name is invalid.', code: 'INVALID_QUANTITY_NAME' });
  }
  if (!ADJUSTMENT_REASONS.has(input.reason)) errors.push({ field: ['input', 'reason'], message: 'The specified reason is invalid.', code: 'INVALID_REASON' });
  if (input.referenceDocumentUri != null && !/^[a-z][a-z0-9+.-]*:\/?\/?\S+$/i.test(input.referenceDocumentUri)) {
    errors.push({ field: ['input', 'referenceDocumentUri'], message: 'The specified reference document is invalid.', code: 'INVALID_REFERENCE_DOCUMENT' });
  }
  const planned: { level: LevelRecord; delta: number }[] = [];
  const pending = new Map<LevelRecord, number>();
  input.changes.forEach((change, i) => {
    const field = (name: string) => ['input', 'changes', String(i), name];
    if (change.ledgerDocumentUri != null) errors.push({ field: field('ledgerDocumentUri'), message: 'A ledger document URI is not allowed when adjusting available.', code: 'INVALID_AVAILABLE_DOCUMENT' });
    const itemId = legacyId(change.inventoryItemId, 'InventoryItem');
    const locationId = legacyId(change.locationId, 'Location');
    if (!itemId || !store.items.has(itemId)) {
      errors.push({ field: field('inventoryItemId'), message: 'The specified inventory item could not be found.', code: 'INVALID_INVENTORY_ITEM' });
      return;
    }
    const location = locationId ? store.locations.get(locationId) : undefined;
    if (!location || !location.isActive) {
      errors.push({ field: field('locationId'), message: 'The specified location could not be found.', code: 'INVALID_LOCATION' });
      return;
    }
    const existing = store.level(itemId, location.id);
    if (!existing) {
      errors.push({ field: field('locationId'), message: 'The specified inventory item is not stocked at the location.', code: 'INVALID_LOCATION' });
      return;
    }
    const current = existing.available + (pending.get(existing) ?? 0);
    if (change.changeFromQuantity !== undefined && change.changeFromQuantity !== null && change.changeFromQuantity !== current) {
      errors.push({ field: field('changeFromQuantity'), message: 'The changeFromQuantity argument no longer matches the persisted quantity.', code: 'CHANGE_FROM_QUANTITY_STALE' });
    }
    const after = current + change.delta;
    if (after > LIMIT) errors.push({ field: field('delta'), message: "The quantity can't be higher than 2,000,000,000.", code: 'INVALID_QUANTITY_TOO_HIGH' });
    if (after < -LIMIT) errors.push({ field: field('delta'), message: "The quantity can't be lower than -2,000,000,000.", code: 'INVALID_QUANTITY_TOO_LOW' });
    pending.set(existing, (pending.get(existing) ?? 0) + change.delta);
    planned.push({ level: existing, delta: change.delta });
  });
  if (errors.length) return { group: null, userErrors: errors };

  const changes: AdjustmentChangeRecord[] = [];
  for (const { level, delta } of planned) {
    store.moveLevel(level, 'available', delta);
    changes.push({ name: 'available', delta, quantityAfterChange: level.available, itemId: level.itemId, locationId: level.locationId });
  }
  const group: AdjustmentGroupRecord = {
    __typename: 'InventoryAdjustmentGroup', id: store.newId(), createdAt: store.stamp(), reason: input.reason,
    referenceDocumentUri: input.referenceDocumentUri ?? null, changes, idempotencyKey: key,
  };
  store.adjustmentGroups.push(group);
  ctx.applied = true;
  for (const level of new Set(planned.map((p) => p.level))) ctx.shop.emitLevel(level);
  return { group, userErrors: [] };
}

