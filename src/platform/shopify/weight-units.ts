/**
 * Shopify's `WeightUnit` values and bomcore's weight unit labels (a dataset's `weightUnitId`),
 * both ways: the sync maps Shopify's to bomcore's, the emulator the other way.
 */
export const SHOPIFY_WEIGHT_UNITS = { KILOGRAMS: 'kg', GRAMS: 'g', POUNDS: 'lb', OUNCES: 'oz' } as const;

export type ShopifyWeightUnit = keyof typeof SHOPIFY_WEIGHT_UNITS;

/** bomcore's label of a Shopify weight unit (null for a unit bomcore does not know). */
export function weightUnitLabel(unit: string): string | null {
  return Object.hasOwn(SHOPIFY_WEIGHT_UNITS, unit) ? SHOPIFY_WEIGHT_UNITS[unit as ShopifyWeightUnit] : null;
}

/** Shopify's weight unit of a bomcore label (null when Shopify has none for it). */
export function shopifyWeightUnit(label: string): ShopifyWeightUnit | null {
  const found = Object.entries(SHOPIFY_WEIGHT_UNITS).find(([, l]) => l === label);
  return found ? (found[0] as ShopifyWeightUnit) : null;
}
