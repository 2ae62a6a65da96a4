import { defineEntity, p } from '@mikro-orm/core';
import { timestamp } from '../../db/columns.ts';

/**
 * The `state` of an install link (`GET /shopify/install`): single use, ten minutes, checked by the
 * callback on whichever instance Shopify's redirect reaches. Not a shop's row: no shop exists yet.
 */
export const ShopifyInstallState = defineEntity({
  name: 'ShopifyInstallState',
  tableName: 'shopify_install_states',
  properties: {
    state: p.text().primary(),
    /** The store the link was made for: the callback's `shop` must be it. */
    domain: p.text(),
    expiresAt: timestamp(),
  },
});
