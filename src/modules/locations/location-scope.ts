// Location ids as every module reads them: a read's `locationIds` scope and the order of bare
// numeric ids. In the platform module (the lowest tier), so stock, materials and work orders share
// them without importing one another.

/**
 * A `locationIds` scope: null means every location; otherwise the distinct ids (possibly an empty
 * list after the route dropped empty values, which then means every location too).
 */
export function normaliseScope(locationIds: readonly string[] | null | undefined): string[] | null {
  const ids = [...new Set((locationIds ?? []).filter((id) => id !== ''))];
  return ids.length === 0 ? null : ids;
}

/** Orders bare numeric location ids numerically ("9" before "10"). */
export function compareLocationIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
