import { AnswerClock } from '../kernel/answer-clock.ts';
import type { Config } from '../kernel/config.ts';
import type { Orm } from '../db/orm.ts';
import { recipeCatalogSources } from '../modules/materials/for-recipes.ts';
import { mirrorPlatformMaterials, platformMaterialIds } from '../modules/materials/platform-mirror.ts';
import { executeOrderChange, relocateOrder, reserveSyncedOrders } from '../modules/orders/order-execution.service.ts';
import { refreshCostRollup } from '../modules/boms/cost-rollup.repository.ts';
import { enqueueStorefrontRecomputes } from '../modules/boms/for-stock.ts';
import { eraseShopData } from '../dataset/erase.ts';
import { recordPlatformLevelEvents } from '../modules/stock/platform-level-events.ts';
import type { PlatformGatewayFactory, PlatformOpenOrder } from '../kernel/platform-port/gateway.ts';
import { localPlatformGateway } from '../platform/local-gateway.ts';
import { mirroredVariantPages } from '../platform/mirror.ts';
import { LiveLevelsGateway } from '../modules/stock/live-levels.ts';
import { installAppOf, platformGatewayFactory } from '../platform/shopify/shopify-gateway.ts';
import { connectedAtOf } from '../platform/shopify/connections.ts';
import { resolveSecretKey, SecretBox } from '../kernel/secret-box.ts';
import type { WebhookFollowers } from '../platform/shopify/webhooks/apply.ts';
import type { Em } from '../db/orm.ts';
import type { ContextDeps, ShopContext } from '../kernel/shop-context.ts';

// The composition root's wiring of the platform port, shared by the HTTP app (src/app/app.ts), the CLI
// and the tests that build shop contexts. The kernel's shop context knows only the port
// (src/kernel/platform-port/gateway.ts); the adapters (src/platform) report the platform's own
// levels; here an adapter meets the stock module, whose LiveLevelsGateway adds the outbox's pending
// pushes. Like src/app/app.ts, this file may import every layer (.dependency-cruiser.cjs).

/**
 * The platform port as services see it: the adapter (the local platform store unless another is
 * given) with live levels including the outbox's pending pushes, so no read shows stock already
 * consumed but not yet pushed.
 */
export function servicePlatform(adapter: PlatformGatewayFactory = localPlatformGateway): PlatformGatewayFactory {
  return (shop) => new LiveLevelsGateway(adapter(shop), shop);
}

/**
 * The platform adapter of each shop: Shopify for a shop connected to its store (`bomcore shop
 * connect`), the local platform store for any other. Reads come from the local store either way
 * (for a connected shop, the mirror its sync keeps); the secret key that opens stored tokens is
 * resolved the first time a connected shop writes.
 */
export function platformAdapter(config: Config): PlatformGatewayFactory {
  let box: SecretBox | null = null;
  return platformGatewayFactory({
    secretBox: () => (box ??= new SecretBox(resolveSecretKey(config))),
    api: { endpoint: config.shopifyEndpoint },
    installApp: installAppOf(config),
  });
}

/**
 * What `shopContextFor` needs: the ORM, the configuration, the service platform port over `adapter`
 * and the catalogue sources the recipes module reads of materials and stock.
 */
export function contextDeps(orm: Orm, config: Config, adapter?: PlatformGatewayFactory): ContextDeps {
  return { orm, config, platform: servicePlatform(adapter ?? platformAdapter(config)), catalog: recipeCatalogSources };
}

/**
 * A shop context on the webhook applier's transaction: services run in the event's transaction, the
 * platform port reads the mirror (pending pushes included), and the records name the event.
 */
function webhookContext(config: Config, platform: PlatformGatewayFactory, em: Em, shopId: string, eventId: string): ShopContext {
  const platformFor = (bound: Em) => platform({ shopId, em: bound });
  return {
    shopId, em, platform: platformFor(em), platformFor, config, catalog: recipeCatalogSources,
    requestId: `shopify-webhook:${eventId}`, apiKeyId: null, scopes: [], clock: new AnswerClock(),
  };
}

/** What follows a full sync's mirror: open orders order execution has not seen reserve what is still to ship. */
export function syncedOrdersFollower(config: Config, adapter?: PlatformGatewayFactory) {
  const platform = servicePlatform(adapter ?? platformAdapter(config));
  return async (em: Em, shopId: string, orders: readonly PlatformOpenOrder[]): Promise<void> => {
    await reserveSyncedOrders(webhookContext(config, platform, em, shopId, 'full-sync'), orders);
  };
}

/**
 * What follows a Shopify webhook (or a reconciliation read) once it changed the mirror: platform-linked
 * materials take their variants' new catalogue fields and level totals (the materials module's mirror,
 * as after a full sync), their levels that moved become `inventory.level_changed` events (source
 * `platform`), and an order event runs order execution (reservations, fulfilments consumed once,
 * release); an order whose fulfilment orders moved has its reservations moved with them. A unit
 * cost that changed (an inventory item's webhook, a reconciliation read) refreshes the cost roll-up
 * of the bills using the material in the same transaction, as a PATCH of the cost does.
 */
export function webhookFollowers(config: Config, adapter?: PlatformGatewayFactory): WebhookFollowers {
  const platform = servicePlatform(adapter ?? platformAdapter(config));
  return {
    async variantsChanged(em, shopId, variantIds) {
      const mirrored = await mirrorPlatformMaterials(em, shopId, mirroredVariantPages(em, shopId, 1000, variantIds));
      // A cost Shopify changed (inventory_items/update, a reconciliation read) moves the cost of every bill that uses the material, now.
      if (mirrored.costChanged.length > 0) {
        await refreshCostRollup({ shopId, em, platform: platform({ shopId, em }), catalog: recipeCatalogSources }, { materials: mirrored.costChanged });
      }
    },
    async levelsChanged(em, shopId, changes) {
      // Events for the levels of platform-linked materials only: the shop's other variants (what it sells) are not bomcore's stock.
      const materials = await platformMaterialIds(em, shopId, changes.map((c) => c.variantId));
      await recordPlatformLevelEvents(em, shopId, changes.filter((c) => materials.has(c.variantId)));
      // A component the platform moved (a receipt, a count) moves the storefront level of the finished goods made of it. A
      // finished good's own level moving (an order, bomcore's own set) is not a trigger: its order's reservation is.
      await enqueueStorefrontRecomputes(em, shopId, { items: [...materials] });
    },
    async shopRedacted(em, shopId) {
      // Shopify's shop/redact, 48 hours after an uninstall: the store's data is gone already; bomcore's own follows the operator's choice.
      if (config.shopRedact === 'erase') await eraseShopData(em, shopId);
    },
    async orderChanged(em, shopId, change, eventId) {
      // A fulfilment shipped before the store was connected consumed stock bomcore did not keep yet.
      // Shopify's times are whole seconds: one in the second of the connection counts as after it.
      const connectedAt = change.fulfilments.length > 0 ? await connectedAtOf(em, shopId) : null;
      const consumeFrom = connectedAt ? new Date(Math.floor(connectedAt.getTime() / 1000) * 1000) : null;
      await executeOrderChange(webhookContext(config, platform, em, shopId, eventId), change, { consumeFrom });
    },
    async orderRelocated(em, shopId, location, eventId) {
      await relocateOrder(webhookContext(config, platform, em, shopId, eventId), location);
    },
  };
}
