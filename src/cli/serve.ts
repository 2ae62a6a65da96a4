import cluster from 'node:cluster';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import type { Config } from '../kernel/config.ts';
import { CommandError, parse, positiveInt } from './args.ts';
import { portProblem } from './port-problem.ts';

/**
 * Fails fast when HOST:PORT is taken: before the database is opened, migrated or given the demo
 * shop (which takes seconds), and before the server's modules are loaded. Port 0 (any free port) passes.
 */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const problem = portProblem(error, host, port);
      reject(problem ? new CommandError(problem) : error);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * The worker count: `--workers`, else BOMCORE_WORKERS, else every core on PostgreSQL and 1 on the
 * embedded database. More than 1 on the embedded database is refused: it has one owner, one process.
 */
export function workerCount(flag: string | undefined, config: Pick<Config, 'databaseUrl'>, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = env.BOMCORE_WORKERS;
  let n: number;
  if (flag !== undefined) n = positiveInt(flag, '--workers', 1);
  else if (fromEnv) {
    n = Number(fromEnv);
    if (!/^\d+$/.test(fromEnv.trim()) || n < 1) throw new CommandError(`BOMCORE_WORKERS must be a positive integer, got "${fromEnv}"`);
  } else return config.databaseUrl ? availableParallelism() : 1;
  if (n > 1 && !config.databaseUrl) {
    throw new CommandError(`${flag !== undefined ? '--workers' : 'BOMCORE_WORKERS'} ${n} needs PostgreSQL: the embedded database has one owner, one process; use 1 worker, or set DATABASE_URL to run several`);
  }
  return n;
}

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { workers: { type: 'string' } });
  const { loadConfig } = await import('../kernel/config.ts');
  const config = loadConfig();
  // A worker of `--workers N` (src/cli/cluster.ts): the primary checked the port and holds it.
  if (cluster.isWorker) return (await import('./server.ts')).runServer(config);
  const workers = workerCount(values.workers, config);
  await checkPortFree(config.host, config.port);
  // One worker is one process, as ever: no primary in between.
  if (workers === 1) return (await import('./server.ts')).runServer(config);
  await (await import('./cluster.ts')).runPrimary(config, workers);
}
