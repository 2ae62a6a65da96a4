// Runs the scenarios against one prepared shop: starts the servers (bomcore, and for the full run
// the floor and PostGraphile), probes each scenario once (status, SQL count, same data as the
// floor), then measures it unloaded (1 connection) and loaded (N connections).
import { join } from 'node:path';
import pg from 'pg';
import { measure, probe, sameData, type Measurement, type MeasureContext } from './measure.ts';
import type { Options } from './options.ts';
import { flagsFor } from '../bin/node-flags.js';
import { freePort, progress, rssMiB, startServer, stopServer, type Server } from './processes.ts';
import { buildScenarios, restoreInventoryBody, type Scenario, type Twin } from './scenarios.ts';
import type { Shop } from './shop.ts';

export type Side = 'rest' | Twin;

export interface ScenarioResult {
  id: string;
  title: string;
  kind: 'read' | 'write';
  paged: boolean;
  /** X-Query-Count of one REST request. */
  sql: number | null;
  /** Per side: statements per request where the side tells, the unloaded (1 connection) and loaded (N connections) measurements. */
  runs: Partial<Record<Side, { sql: number | null; unloaded: Measurement; loaded: Measurement | null }>>;
  /** The floor answered the same `data` as REST (keys sorted); null without a floor. */
  floorSameData: boolean | null;
  /** The first request of a freshly started server (after its start-up warm-up, before the load generator's), ms; null where the server was not fresh. */
  firstReadMs: number | null;
  /** REST at N connections on `serve` with more workers, per worker count (the runs above use the first of --workers). */
  workers: Record<string, Measurement>;
  /** The server's resident set after this row's runs, idle for SETTLE_SECONDS, MiB (null: not measured, e.g. a smoke run). */
  settledRssMiB: number | null;
  failures: string[];
}

/** How long a server idles after a row's runs before its settled resident set is read. */
export const SETTLE_SECONDS = 5;

/**
 * bomcore serve, production-like; every start logs to the same file. Started with the V8 flags
 * `serve` gives itself (bin/node-flags.js) so that it does not start again in a child process: the
 * pid measured is the server's.
 */
async function startBomcore(shop: Shop, options: Options, workDir: string, workers = options.workers[0]!): Promise<Server> {
  const port = await freePort();
  const profile = options.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', join(workDir, 'profiles')] : [];
  const server = await startServer('bomcore', [...flagsFor(['serve'], { DATABASE_URL: shop.databaseUrl }), ...profile, 'src/cli/main.ts', 'serve'], {
    ...process.env, DATABASE_URL: shop.databaseUrl, LOG_LEVEL: options.logLevel, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port),
    BOMCORE_EXPOSE_QUERY_COUNT: '1', RATE_LIMIT_BURST: '1000000000', RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
    // The main rows: the first of --workers (default 1; serve's own default on PostgreSQL is a worker per core).
    BOMCORE_WORKERS: String(workers),
  }, port, '/readyz', join(workDir, `server-${shop.label}.log`));
  progress(`${shop.label}: bomcore serve (${workers} worker(s)) is pid ${server.pid} on port ${port}`);
  return server;
}

async function startTwins(shop: Shop, options: Options, workDir: string): Promise<Partial<Record<Side, Server>>> {
  const env = { ...process.env, DATABASE_URL: shop.databaseUrl, LOG_LEVEL: options.logLevel, NODE_ENV: 'production' };
  const floorPort = await freePort();
  const floor = await startServer('floor', ['bench/floor-server.ts'], { ...env, PORT: String(floorPort) }, floorPort, '/healthz', join(workDir, `floor-${shop.label}.log`));
  const pglPort = await freePort();
  progress(`${shop.label}: starting PostGraphile (schema introspection takes a few seconds)`);
  const postgraphile = await startServer('postgraphile', ['bench/postgraphile-server.ts'], { ...env, PORT: String(pglPort) },
    pglPort, '/healthz', join(workDir, `postgraphile-${shop.label}.log`));
  return { floor, postgraphile };
}

/** `full`: every side, unloaded and (but in a smoke run) loaded. `growth`: REST reads, unloaded only. */
export async function benchShop(shop: Shop, options: Options, workDir: string, mode: 'full' | 'growth'): Promise<ScenarioResult[]> {
  const scenarios = buildScenarios(shop).filter((s) => (!options.only || options.only.includes(s.id)) && (mode === 'full' || s.kind === 'read'));
  const needsTwins = mode === 'full' && scenarios.some((s) => s.twins.floor || s.twins.postgraphile);
  const db = new pg.Client({ connectionString: shop.databaseUrl });
  await db.connect();
  const servers = needsTwins ? await startTwins(shop, options, workDir) : {};
  const ctx: MeasureContext = {
    workDir, warmupSeconds: options.warmupSeconds, durationSeconds: options.durationSeconds, timeoutSeconds: options.timeoutSeconds,
    activeStatements: async () => Number((await db.query(
      `select count(*) as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`)).rows[0].n),
  };
  const results: ScenarioResult[] = [];
  // A fresh bomcore per scenario in the full run: each row's peak RSS and heap start clean (V8 keeps
  // what an earlier scenario grew), and --cpu-prof writes one profile per scenario.
  const fresh = mode === 'full' && !options.smoke;
  try {
    for (const scenario of scenarios) {
      if (servers.rest && fresh) await stopServer(servers.rest);
      const started = !servers.rest || fresh;
      if (started) servers.rest = servers.graphql = await startBomcore(shop, options, workDir);
      results.push(await benchScenario(ctx, servers, shop, scenario, options, mode, started));
    }
    if (fresh) await withMoreWorkers(ctx, shop, scenarios, results, options, workDir);
  } finally {
    for (const server of new Set(Object.values(servers))) await stopServer(server);
    await db.end();
  }
  return results;
}

/** The reads again at N connections on one `serve --workers N` per further count of --workers. */
async function withMoreWorkers(ctx: MeasureContext, shop: Shop, scenarios: Scenario[], results: ScenarioResult[], options: Options, workDir: string): Promise<void> {
  for (const workers of options.workers.slice(1)) {
    const server = await startBomcore(shop, options, workDir, workers);
    try {
      for (const [i, scenario] of scenarios.entries()) {
        const result = results[i]!;
        if (scenario.kind !== 'read' || !result.runs.rest?.loaded) continue;
        // The writes measured since changed the shop's data version: a fresh tag.
        const tagProblem = scenario.conditional ? await conditionalTag(server, scenario) : null;
        if (tagProblem) result.failures.push(`${workers} workers, If-None-Match: ${tagProblem}`);
        progress(`${shop.label}: ${scenario.id} via REST on ${workers} workers: ${options.connections} connections`);
        const run = await measure(ctx, server, scenario, scenario.rest, options.connections);
        if (run.failed) result.failures.push(`${workers} workers: ${run.failed} failed; first: ${run.firstFailure}`);
        result.workers[String(workers)] = run;
      }
    } finally {
      await stopServer(server);
    }
  }
}

/** Sets If-None-Match to the tag of a 200 of the same read (the spec's headers are shared: copied, not changed). */
async function conditionalTag(rest: Server, scenario: Scenario): Promise<string | null> {
  const { expectStatus: _304, headers: { 'if-none-match': _old, ...headers }, ...plain } = scenario.rest;
  const first = await probe(rest, { ...plain, headers });
  if (first.problem || !first.etag) return `the first 200 had ${first.problem ?? 'no ETag'}`;
  scenario.rest = { ...scenario.rest, headers: { ...scenario.rest.headers, 'if-none-match': first.etag } };
  return null;
}

async function benchScenario(ctx: MeasureContext, servers: Partial<Record<Side, Server>>, shop: Shop, scenario: Scenario, options: Options, mode: 'full' | 'growth', fresh: boolean): Promise<ScenarioResult> {
  const rest = servers.rest!;
  const result: ScenarioResult = {
    id: scenario.id, title: scenario.title, kind: scenario.kind, paged: scenario.paged, sql: null, runs: {}, floorSameData: null, firstReadMs: null, workers: {}, settledRssMiB: null, failures: [],
  };
  const tagProblem = scenario.conditional ? await conditionalTag(rest, scenario) : null;
  if (tagProblem) result.failures.push(`If-None-Match: ${tagProblem}`);
  const first = scenario.buildRuns?.workOrders[0];
  const probeBody = first
    ? JSON.stringify({ expectedUpdatedAt: first.updatedAt, buildRunId: `bench-probe-${process.pid}`, items: [{ itemId: first.itemId, quantity: 1 }] })
    : undefined;
  const restProbe = await probe(rest, scenario.rest, probeBody);
  result.sql = restProbe.sql;
  if (fresh && scenario.kind === 'read' && !scenario.conditional) result.firstReadMs = Math.round(restProbe.ms * 100) / 100;
  if (restProbe.problem) result.failures.push(`REST probe: ${restProbe.problem}`);
  if (first && !restProbe.problem) first.updatedAt = (JSON.parse(restProbe.body) as { data: { workOrderUpdatedAt: string } }).data.workOrderUpdatedAt;
  const sides: [Side, Server, typeof scenario.rest, number | null][] = [['rest', rest, scenario.rest, restProbe.sql]];
  if (mode === 'full') {
    for (const [twin, spec] of Object.entries(scenario.twins) as [Twin, typeof scenario.rest][]) {
      const server = servers[twin];
      if (!server) continue;
      const twinProbe = await probe(server, spec);
      if (twinProbe.problem) result.failures.push(`${twin} probe: ${twinProbe.problem}`);
      if (twin === 'floor') result.floorSameData = sameData(restProbe.body, twinProbe.body);
      sides.push([twin, server, spec, twinProbe.sql]);
    }
  }
  const withLoad = mode === 'full' && !options.smoke;
  for (const [side, server, spec, sql] of sides) {
    progress(`${shop.label}: ${scenario.id} via ${side}: 1 connection${withLoad ? `, then ${options.connections}` : ''}`);
    const unloaded = await measure(ctx, server, scenario, spec, 1);
    const loaded = withLoad ? await measure(ctx, server, scenario, spec, options.connections) : null;
    result.runs[side] = { sql, unloaded, loaded };
    for (const run of [unloaded, loaded]) {
      if (run?.failed) result.failures.push(`${side}, ${run.connections} connection(s): ${run.failed} failed; first: ${run.firstFailure}`);
    }
  }
  if (scenario.id === 'inventory-patch') {
    const restored = await probe(rest, scenario.rest, restoreInventoryBody(shop));
    if (restored.problem) result.failures.push(`restoring the level: ${restored.problem}`);
  }
  if (withLoad) {
    await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
    result.settledRssMiB = rssMiB(rest.pid);
    progress(`${shop.label}: ${scenario.id}: bomcore idle ${SETTLE_SECONDS} s after the runs: RSS ${result.settledRssMiB ?? 'n/a'} MiB`);
  }
  for (const failure of result.failures) progress(`${shop.label}: ${scenario.id}: FAILED ${failure}`);
  return result;
}
