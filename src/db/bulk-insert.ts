import type { Em } from './orm.ts';

/** PostgreSQL accepts at most 65,535 bind parameters per statement. */
const MAX_PARAMS = 60_000;

/**
 * Multi-row INSERT in as few statements as the parameter limit allows: a 100k-row table is a
 * handful of round trips, not 100k.
 */
export async function bulkInsert(em: Em, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    await em.execute(head + chunk.map(() => tuple).join(', '), chunk.flat(), 'run');
  }
}
