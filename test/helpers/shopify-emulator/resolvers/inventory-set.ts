import type { GraphQLResolveInfo } from 'graphql';
import { requireScope, type EmulatorContext } from '../context.ts';
import { legacyId } from '../gid.ts';
import type { AdjustmentChangeRecord, AdjustmentGroupRecord, LevelRecord } from '../records.ts';
import { ADJUSTMENT_REASONS, idempotentMutation, type UserError } from './inventory-mutations.ts';

// inventorySetQuantities as Shopify runs it in 2026-10
// (https://shopify.dev/docs/api/admin-graphql/2026-10/mutations/inventorySetQuantities):
// - the @idempotent directive is required since 2026-04, and a key replays its first answer
//   (https://shopify.dev/docs/api/usage/idempotent-requests);
// - every quantity must carry `changeFromQuantity` since 2026-04 (checked for every operation by
//   mandatory-inputs.ts); a value that is not the persisted quantity refuses the whole call with
//   CHANGE_FROM_QUANTITY_STALE, `null` opts that quantity out of the check
//   (https://shopify.dev/docs/api/admin-graphql/2026-10/input-objects/InventoryQuantityInput,
//   https://shopify.dev/changelog/posts/compare-and-swap-for-inventory-mutations-with-change-from-quantity);
// - `name` is `available` or `on_hand`, `reason` one of the documented reasons, an
//   (item, location) pair at most once; every quantity is checked before any is set (all or none)
//   (https://shopify.dev/docs/api/admin-graphql/2026-10/enums/InventorySetQuantitiesUserErrorCode).

interface QuantityInput { inventoryItemId: string; locationId: string; quantity: number; changeFromQuantity?: number | null }
interface SetInput { name: string; reason: string; referenceDocumentUri?: string | null; quantities: QuantityInput[] }

const LIMIT = 1_000_000_000;

export function inventorySetQuantities(_: unknown, args: { input: SetInput }, ctx: EmulatorContext, info: GraphQLResolveInfo) {
  requireScope(ctx, 'write_inventory', 'inventorySetQuantities');
  return idempotentMutation('inventorySetQuantities', args.input, ctx, info, apply, payload);
}

function payload(group: AdjustmentGroupRecord | null, userErrors: UserError[]) {
  return { inventoryAdjustmentGroup: group, userErrors: userErrors.map((e) => ({ ...e, __typename: 'InventorySetQuantitiesUserError' })) };
}

function apply(input: SetInput, key: string, ctx: EmulatorContext): { group: AdjustmentGroupRecord | null; userErrors: UserError[] } {
  const store = ctx.shop.store;
  const errors: UserError[] = [];
  if (input.name !== 'available' && input.name !== 'on_hand') errors.push({ field: ['input', 'name'], message: "The quantity name must be either 'available' or 'on_hand'.", code: 'INVALID_NAME' });
  if (!ADJUSTMENT_REASONS.has(input.reason)) errors.push({ field: ['input', 'reason'], message: 'The specified reason is invalid.', code: 'INVALID_REASON' });
  if (input.referenceDocumentUri != null && !/^[a-z][a-z0-9+.-]*:\/?\/?\S+$/i.test(input.referenceDocumentUri)) {
    errors.push({ field: ['input', 'referenceDocumentUri'], message: 'The specified reference document is invalid.', code: 'INVALID_REFERENCE_DOCUMENT' });
  }
  const planned: { level: LevelRecord; quantity: number }[] = [];
  const named = new Set<string>();
  input.quantities.forEach((q, i) => {
    const field = (name: string) => ['input', 'quantities', String(i), name];
    const itemId = legacyId(q.inventoryItemId, 'InventoryItem');
    const locationId = legacyId(q.locationId, 'Location');
    if (!itemId || !store.items.has(itemId)) {
      errors.push({ field: field('inventoryItemId'), message: 'The specified inventory item could not be found.', code: 'INVALID_INVENTORY_ITEM' });
      return;
    }
    const location = locationId ? store.locations.get(locationId) : undefined;
    if (!location || !location.isActive) {
      errors.push({ field: field('locationId'), message: 'The specified location could not be found.', code: 'INVALID_LOCATION' });
      return;
    }
    if (named.has(`${itemId}|${location.id}`)) {
      errors.push({ field: field('locationId'), message: 'The combination of inventoryItemId and locationId must be unique.', code: 'NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR' });
      return;
    }
    named.add(`${itemId}|${location.id}`);
    const level = store.level(itemId, location.id);
    if (!level) {
      errors.push({ field: field('locationId'), message: 'The specified inventory item is not stocked at the location.', code: 'INVALID_LOCATION' });
      return;
    }
    const persisted = input.name === 'on_hand' ? level.available + level.committed : level.available;
    if (q.changeFromQuantity !== undefined && q.changeFromQuantity !== null && q.changeFromQuantity !== persisted) {
      errors.push({ field: field('changeFromQuantity'), message: 'The changeFromQuantity value does not match persisted value.', code: 'CHANGE_FROM_QUANTITY_STALE' });
    }
    if (q.quantity > LIMIT) errors.push({ field: field('quantity'), message: "The total quantity can't be higher than 1,000,000,000.", code: 'INVALID_QUANTITY_TOO_HIGH' });
    if (q.quantity < -LIMIT) errors.push({ field: field('quantity'), message: "The total quantity can't be lower than -1,000,000,000.", code: 'INVALID_QUANTITY_TOO_LOW' });
    planned.push({ level, quantity: input.name === 'on_hand' ? q.quantity - level.committed : q.quantity });
  });
  if (errors.length) return { group: null, userErrors: errors };

  const changes: AdjustmentChangeRecord[] = [];
  for (const { level, quantity } of planned) {
    const delta = quantity - level.available;
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
