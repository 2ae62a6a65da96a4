// The one home of the stock vocabulary: residual and reservation kinds, material origins.

export const RESIDUAL_KINDS = ['buildRun', 'safetyStock'] as const;
export type ResidualKind = (typeof RESIDUAL_KINDS)[number];

export const RESERVATION_KINDS = ['order', 'safetyStock'] as const;
export type ReservationKind = (typeof RESERVATION_KINDS)[number];

/** Numeric variant ids are platform-linked (levels live on the platform); `VMAT-…` ids are virtual. */
export const MATERIAL_ORIGINS = ['platform', 'virtual'] as const;
export type MaterialOrigin = (typeof MATERIAL_ORIGINS)[number];

export function isPlatformVariantId(variantId: string): boolean {
  return /^[0-9]+$/.test(variantId);
}
