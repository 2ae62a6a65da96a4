// What the planning module (a higher tier) reads of the recipes: every bill of the shop, with its
// lines, location rules and lead time, in one statement.
export { loadAllBillsForest } from './engine/load.ts';
