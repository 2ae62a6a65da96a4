/**
 * Shopify's global ids (`gid://shopify/ProductVariant/44001`) and bomcore's platform ids (the
 * numeric legacy id, "44001", as datasets and the REST contract carry them). One codec, so no
 * other file builds or parses a GID.
 */
export type ShopifyResource = 'Location' | 'Product' | 'ProductVariant' | 'InventoryItem' | 'Order' | 'LineItem' | 'InventoryLevel' | 'Fulfillment' | 'FulfillmentOrder';

export function toGid(resource: ShopifyResource, legacyId: string): string {
  return `gid://shopify/${resource}/${legacyId}`;
}

/** The legacy id of a GID of `resource` (query strings like `?inventory_item_id=…` dropped); throws on another resource. */
export function fromGid(resource: ShopifyResource, gid: string): string {
  const prefix = `gid://shopify/${resource}/`;
  if (!gid.startsWith(prefix)) throw new Error(`expected a ${resource} id, got "${gid}"`);
  const rest = gid.slice(prefix.length);
  const cut = rest.indexOf('?');
  return cut < 0 ? rest : rest.slice(0, cut);
}

/**
 * A numeric legacy id as Shopify's webhook payloads carry it (a positive safe integer, or its
 * digits as text), else null.
 */
export function numericId(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return value;
  return null;
}

/** The resource name of any GID (`ProductVariant` of `gid://shopify/ProductVariant/1`), or null when it is none. */
export function gidResource(gid: string): string | null {
  const match = /^gid:\/\/shopify\/([A-Za-z]+)\//.exec(gid);
  return match ? match[1]! : null;
}
