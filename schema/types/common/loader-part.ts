import type { GraphQLContext } from '../../context.ts';

// What every type folder's loaders.ts returns: its per-request DataLoaders and how to forget what
// they hold. schema/loaders.ts joins the parts into the request's one `Loaders`.

/** One type folder's loaders of a request, and `clear` to forget what they hold (after a write). */
export interface LoaderPart<T> { loaders: T; clear(): void }

/**
 * Builds a type folder's loaders for one request. `all` gives the request's other loaders (the
 * folders' parts joined), for a loader that follows another type (levels name their locations).
 */
export type LoaderFactory<T, All = unknown> = (ctx: GraphQLContext, all: () => All) => LoaderPart<T>;

/** Orders the values of a Map by the batch's keys, null where absent (the DataLoader contract). */
export function inKeyOrder<V>(keys: readonly string[], found: ReadonlyMap<string, V>): (V | null)[] {
  return keys.map((key) => found.get(key) ?? null);
}

/** A DataLoader per distinct set of arguments (a location scope, a page's arguments), kept for the request. */
export function perArguments<K, L>(create: (key: K) => L, keyOf: (key: K) => string): { get(key: K): L; clear(): void } {
  const made = new Map<string, L>();
  return {
    get(key) {
      const id = keyOf(key);
      let loader = made.get(id);
      if (!loader) {
        loader = create(key);
        made.set(id, loader);
      }
      return loader;
    },
    clear: () => made.clear(),
  };
}
