import { recordEvents } from '../events/event-log.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';

// The materials module's event: a raw material's own fields changed (its levels are the ledger's
// `inventory.level_changed`). The event names what changed; a client reads the material for the values.

export function recordMaterialUpdated(tx: ShopContext, variantId: string, data: { change: string; fields?: readonly string[] }): Promise<void> {
  return recordEvents(tx, [{ type: 'material.updated', resource: `material:${variantId}`, data: { variantId, change: data.change, fields: data.fields ?? [] } }]);
}
