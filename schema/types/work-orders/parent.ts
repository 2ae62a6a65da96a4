import type { WholeWorkOrder } from '../../../src/modules/work-orders/work-order-read.service.ts';
import type { GraphQLContext } from '../../context.ts';
import { loadersOf } from '../../loaders.ts';

// The parts of a work order (runs, reviews, rework, plan rows, warnings) name its items and runs by
// id alone. A part read through its work order remembers which one (by the work order, or its id
// when only that is at hand), so its links find the item or run without another read.

const parents = new WeakMap<object, WholeWorkOrder | string>();

/** Records `parent` (the whole work order, or its id) as the work order of each of `parts`; returns `parts`. */
export function adopt<T extends object>(parent: WholeWorkOrder | string | null | undefined, parts: T[]): T[] {
  if (parent) for (const part of parts) parents.set(part, parent);
  return parts;
}

/** The work order a part was read through (through the request's loader when only its id is known); null for a part read alone. */
export async function workOrderOf(ctx: GraphQLContext, part: object): Promise<WholeWorkOrder | null> {
  const parent = parents.get(part);
  if (parent === undefined) return null;
  return typeof parent === 'string' ? loadersOf(ctx).workOrder.load(parent) : parent;
}

/** The work order a part was read through, as adopt recorded it (for passing it on to the part's own parts). */
export const parentOf = (part: object): WholeWorkOrder | string | undefined => parents.get(part);
