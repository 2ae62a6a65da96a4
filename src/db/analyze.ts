import type { Em } from './orm.ts';

/**
 * Refreshes the planner statistics of `tables` (one ANALYZE, outside any transaction) after a batch
 * write changed them (a dataset load, a platform sync). Without it a freshly filled table is
 * planned as if it were near-empty until autovacuum gets to them (a minute or more on PostgreSQL,
 * never on PGlite): a list sorted by inventoryQuantity over 20k materials ran into the statement
 * timeout, holding a pool connection each time. ANALYZE reads a bounded sample per table, so its
 * time does not grow with the data past that sample.
 */
export async function analyzeTables(rootEm: Em, tables: readonly string[]): Promise<void> {
  await analyzeTablesIn(rootEm.fork(), tables);
}

/** ANALYZE on `em` itself (inside its transaction, which ANALYZE may join): statistics of rows the transaction just wrote. */
export async function analyzeTablesIn(em: Em, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  await em.execute(`analyze ${tables.map((t) => `"${t}"`).join(', ')}`, [], 'run');
}
