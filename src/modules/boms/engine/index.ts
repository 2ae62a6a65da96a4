// The recipe engine: loads recipe forests in a constant number of round trips and expands them
// exactly (src/kernel/numbers), with location rules applied per bill. Reused by BOM reads, buildable, order
// breakdowns and work orders.
export type { BillKey, BillOwnerType, EngineBill, EngineLine, EngineOverride, LineType, RecipeForest } from './types.ts';
export { billKeyString } from './types.ts';
export { loadRecipeForest, loadRecipeForestAttached, loadShopRecipeForest, seededForestLoader, type AttachedRow, type ForestAttachments } from './load.ts';
export { assembliesTopDown, effectiveLines, getBill, hasBill, ruleLocations } from './lines.ts';
export { explodeToLeaves, leafExpander, lineNeed } from './explode.ts';
// Exact arithmetic lives in src/kernel/numbers; re-exported for the engine's callers.
export { Exact, exact, ceilDiv, floorDiv } from '../../../kernel/numbers/index.ts';
export { planConsumption, type ConsumptionAtLocation, type RootDemand } from './consumption.ts';
