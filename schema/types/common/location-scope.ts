import { DomainError } from '../../../src/kernel/domain-error.ts';

/**
 * A `locationIds` argument: bare numeric location ids, as every location scope of the API takes
 * them; empty values are dropped and an empty (or absent) list means every location (null).
 */
export function locationScope(locationIds: readonly (string | number)[] | null | undefined): string[] | null {
  const ids = [...new Set((locationIds ?? []).map(String).filter((id) => id !== ''))];
  const bad = ids.find((id) => !/^\d+$/.test(id));
  if (bad !== undefined) throw DomainError.invalid('locationIds', `"${bad}" is not a bare numeric location id`);
  return ids.length === 0 ? null : ids;
}
