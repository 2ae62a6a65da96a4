import { HOLDER_CAP } from '../../../src/modules/stock/holders.ts';

// Wording shared by the per-location stock and allocation levels (stock.ts, allocation.ts), said once.

/** A level's `locationName`. */
export const LOCATION_NAME = { nullable: true, description: 'Null when the platform does not know the location.' } as const;
/** A level's `otherHoldersCount` and `otherHoldersQuantity`: what the capped `holders` list leaves out. */
export const OTHER_HOLDERS_COUNT = { description: `Holders beyond the ${HOLDER_CAP} largest of this location.` } as const;
export const OTHER_HOLDERS_QUANTITY = { type: 'Decimal', description: 'Their combined quantity (the level\'s sums always include them).' } as const;
