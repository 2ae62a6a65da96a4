import type { GraphQLContext } from './context.ts';
import type { LoaderPart } from './types/common/loader-part.ts';
import { bomLoaders, type BomLoaders } from './types/boms/loaders.ts';
import { locationLoaders, type LocationLoaders } from './types/locations/loaders.ts';
import { materialLoaders, type MaterialLoaders } from './types/materials/loaders.ts';
import { orderLoaders, type OrderLoaders } from './types/orders/loaders.ts';
import { peopleLoaders, type PeopleLoaders } from './types/people/loaders.ts';
import { stockLoaders, type StockLoaders } from './types/stock/loaders.ts';
import { workOrderLoaders, type WorkOrderLoaders } from './types/work-orders/loaders.ts';

/**
 * Per-request DataLoaders by id, shared by every resolver that follows a link (the links.ts files of schema/types/<type>/),
 * the federation entities (schema/federation.ts) and any other type file. Each type folder declares
 * its own (schema/types/<type>/loaders.ts); this joins them. Each batch function reads all the ids
 * one tick asked for in a constant number of statements, always within the caller's shop
 * (ctx.shopId): an id of another shop loads as null, exactly like an unknown id.
 *
 * Loaders live as long as the request's context object, so a value read twice in one operation
 * is read once, and nothing is shared between requests or shops. A mutation that changes what a
 * loader may already hold, then reads it back through the loaders, calls `clearAll()` first.
 */
export type Loaders = MaterialLoaders & BomLoaders & WorkOrderLoaders & LocationLoaders & PeopleLoaders & OrderLoaders & StockLoaders & {
  /** Forgets everything this request has read (after a write), so the next loads read again. */
  clearAll(): void;
};

const byContext = new WeakMap<object, Loaders>();

/** The loaders of this request (created on first use, then kept with the context). */
export function loadersOf(ctx: GraphQLContext): Loaders {
  let loaders = byContext.get(ctx);
  if (!loaders) {
    loaders = createLoaders(ctx);
    byContext.set(ctx, loaders);
  }
  return loaders;
}

function createLoaders(ctx: GraphQLContext): Loaders {
  const all = (): Loaders => loaders;
  const parts: LoaderPart<object>[] = [];
  const part = <T extends object>(made: LoaderPart<T>): T => {
    parts.push(made);
    return made.loaders;
  };
  const loaders: Loaders = {
    ...part(materialLoaders(ctx, all)),
    ...part(bomLoaders(ctx, all)),
    ...part(workOrderLoaders(ctx, all)),
    ...part(locationLoaders(ctx, all)),
    ...part(peopleLoaders(ctx, all)),
    ...part(orderLoaders(ctx, all)),
    ...part(stockLoaders(ctx, all)),
    clearAll: () => {
      for (const made of parts) made.clear();
    },
  };
  return loaders;
}
