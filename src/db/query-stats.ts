import { AsyncLocalStorage } from 'node:async_hooks';
import { DefaultLogger, type LogContext, type LoggerOptions } from '@mikro-orm/core';

/** Per-request SQL round-trip counter (the "bounded queries" rule is asserted on it in tests). */
export interface QueryStats {
  count: number;
  queries: string[];
}

const storage = new AsyncLocalStorage<QueryStats>();

export function withQueryStats<T>(fn: () => T, stats: QueryStats = { count: 0, queries: [] }): T {
  return storage.run(stats, fn);
}

export function currentQueryStats(): QueryStats | undefined {
  return storage.getStore();
}

/** MikroORM logger that counts every statement sent, then logs as the default logger would. */
export class CountingLogger extends DefaultLogger {
  constructor(options: LoggerOptions) {
    super(options);
  }

  override logQuery(context: LogContext & { query: string }): void {
    const stats = storage.getStore();
    if (stats) {
      stats.count += 1;
      if (stats.queries.length < 500) stats.queries.push(context.query);
    }
    super.logQuery(context);
  }
}
