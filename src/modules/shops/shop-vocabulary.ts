// The shops module's value sets (docs/architecture.md, "Value sets").

/**
 * A shop's plan. `enhanced` (the default) has every operation; `standard` has every read and write
 * but the enhanced-plan operations, which are refused with PLAN_REQUIRED (403): starting a build run.
 */
export const SHOP_PLANS = ['standard', 'enhanced'] as const;
export type ShopPlan = (typeof SHOP_PLANS)[number];

/** The plan of a shop whose dataset names none, and of every shop that existed before plans did. */
export const DEFAULT_SHOP_PLAN: ShopPlan = 'enhanced';
