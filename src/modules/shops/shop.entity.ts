import { defineEntity, p } from '@mikro-orm/core';
import { timestamp } from '../../db/columns.ts';

/** A tenant. Every other row carries its id; API keys are issued per shop. */
export const Shop = defineEntity({
  name: 'Shop',
  tableName: 'shops',
  properties: {
    id: p.text().primary(),
    name: p.text(),
    allowNegativeInventory: p.boolean().default(false),
    materialRequirementsMetafield: p.boolean().default(false),
    createdAt: timestamp().onCreate(() => new Date()),
    updatedAt: timestamp().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
