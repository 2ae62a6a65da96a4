import { defineEntity, p } from '@mikro-orm/core';
import { timestamp } from '../../db/columns.ts';
import { DEFAULT_SHOP_PLAN, SHOP_PLANS } from './shop-vocabulary.ts';

/** A tenant. Every other row carries its id; API keys are issued per shop. */
export const Shop = defineEntity({
  name: 'Shop',
  tableName: 'shops',
  properties: {
    id: p.text().primary(),
    name: p.text(),
    allowNegativeInventory: p.boolean().default(false),
    materialRequirementsMetafield: p.boolean().default(false),
    /** standard | enhanced (shop-vocabulary.ts): an enhanced-plan operation on a standard shop is PLAN_REQUIRED. */
    plan: p.enum(SHOP_PLANS).default(DEFAULT_SHOP_PLAN),
    createdAt: timestamp().onCreate(() => new Date()),
    updatedAt: timestamp().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
