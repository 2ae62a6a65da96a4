import type { TSchema } from '@sinclair/typebox';

/**
 * A route's `data` schema is derived from its stored operation and the GraphQL schema
 * (rest-facade/derive-schema.ts). What REST says and GraphQL cannot (a component title,
 * `minimum: 0`, a format, a field a route's `toData` adds, a nullable field REST omits instead) is
 * a route's `dataOverrides`, keyed by the REST path of the field (response keys joined by dots;
 * list items are transparent; '' is `data`).
 */
export interface DataOverride {
  /** Absent rather than null: not required, and null is not one of its values (the converter omits it). */
  optional?: boolean;
  /** Forces (true) or forbids (false) null, whatever the GraphQL nullability says. */
  nullable?: boolean;
  /** How nullable scalars below this path (this one included) are written: `anyOf: [T, null]` instead of `type: [T, 'null']`. */
  nullAs?: 'anyOf';
  /** Properties REST does not send (read by a route's `toData`, say). */
  omit?: readonly string[];
  /** Properties REST adds after the selected ones (computed by the route's `toData`). */
  add?: Record<string, TSchema>;
  /** Last step: rewrites the derived schema (for a shape GraphQL cannot select, e.g. a tree of unknown depth). */
  to?: (schema: Json) => Json;
  /**
   * Other JSON-schema keywords, merged in (`undefined` removes one): `description`, `maxItems` and `minItems`
   * at the position, any other on the value (a list's item, the object of a nullable object).
   */
  [keyword: string]: unknown;
}
export type DataOverrides = Record<string, DataOverride>;

/** Overrides of a part shared by several routes (a BuildRun, say), placed at `prefix` of a route's `data`. */
export function under(prefix: string, overrides: DataOverrides): DataOverrides {
  return Object.fromEntries(Object.entries(overrides).map(([path, override]) => [path ? `${prefix}.${path}` : prefix, override]));
}

export type Json = Record<string, any>;
