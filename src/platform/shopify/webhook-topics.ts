/**
 * The webhook topics bomcore subscribes to (Shopify's `WebhookSubscriptionTopic` values): what
 * keeps the mirror current between syncs. One list, read by `shop connect` and the docs test.
 */
export const WEBHOOK_TOPICS = [
  'INVENTORY_LEVELS_UPDATE', 'INVENTORY_LEVELS_CONNECT', 'INVENTORY_LEVELS_DISCONNECT', 'INVENTORY_ITEMS_UPDATE',
  'PRODUCTS_CREATE', 'PRODUCTS_UPDATE', 'PRODUCTS_DELETE',
  'LOCATIONS_CREATE', 'LOCATIONS_UPDATE', 'LOCATIONS_DELETE', 'LOCATIONS_ACTIVATE', 'LOCATIONS_DEACTIVATE',
  'ORDERS_CREATE', 'ORDERS_UPDATED', 'ORDERS_CANCELLED', 'ORDERS_FULFILLED', 'ORDERS_DELETE',
  // Where an online order's units are: a fulfilment order moved to another location, or split.
  'FULFILLMENT_ORDERS_MOVED', 'FULFILLMENT_ORDERS_SPLIT',
  'APP_UNINSTALLED', 'APP_SCOPES_UPDATE',
] as const;

export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
