import { defineEntity, p } from '@mikro-orm/core';
import { timestamp } from '../../db/columns.ts';

/**
 * An API key. Only a SHA-256 hash of the secret is stored. It carries no tenant filter because it
 * is looked up by hash before the shop is known; the shop it names becomes the request's tenant.
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.text().primary(),
    shopId: p.text(),
    name: p.text().nullable(),
    secretHash: p.text().unique(),
    scopes: p.array(),
    createdAt: timestamp(),
    expiresAt: timestamp().nullable(),
    revokedAt: timestamp().nullable(),
  },
  indexes: [{ properties: ['shopId', 'createdAt'] }],
});
