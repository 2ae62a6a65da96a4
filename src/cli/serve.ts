import { readFile } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { forBatchWork, migrate, openDatabase, type Orm } from '../database.ts';
import { ApiKey } from '../modules/auth/api-key.entity.ts';
import { createApiKey } from '../modules/auth/keys.ts';
import { importDataset } from '../modules/dataset/import.ts';
import { parseDatasetText } from '../modules/dataset/parse.ts';
import { startBillVersionFiller } from '../modules/recipes/bill-version-filler.ts';
import { startOutboxDrainer } from '../platform/outbox-drainer.ts';
import { parse } from './args.ts';

const DEMO_FILE = new URL('../../data/demo-dataset.json', import.meta.url);
const START_KEY_NAME = 'npm start (embedded demo)';

/**
 * On the embedded database: load the demo shop when the database is empty, and issue a fresh
 * read-write key for it on every start (revoking the one the previous start printed), so the key
 * printed is always one that works.
 */
async function prepareEmbeddedDemo(orm: Orm, config: Config): Promise<{ shopId: string; key: string } | null> {
  const em = orm.em.fork();
  const [shops] = await em.execute<{ count: string }[]>('select count(*) as count from shops');
  if (Number(shops?.count ?? 0) === 0) {
    const parsed = parseDatasetText(await readFile(DEMO_FILE, 'utf8'));
    if (!parsed.ok) throw new Error(`the bundled demo dataset is invalid: ${parsed.errors[0]?.path} ${parsed.errors[0]?.message}`);
    await importDataset({ orm, config }, parsed.dataset);
    console.log(`Loaded the demo shop "${parsed.dataset.shop.name}" (id ${parsed.dataset.shop.id}).`);
  }
  const [demo] = await em.execute<{ id: string }[]>(`select id from shops where id = 'demo'`);
  if (!demo) return null;
  await em.nativeUpdate(ApiKey, { shopId: 'demo', name: START_KEY_NAME, revokedAt: null }, { revokedAt: new Date() });
  const created = await createApiKey(orm.em.fork(), { shopId: 'demo', scopes: ['read', 'write'], name: START_KEY_NAME });
  return { shopId: 'demo', key: created.key };
}

/** The welcome, written in one piece so a reader of the output never sees half of it. */
function printWelcome(config: Config, address: string, demo: { shopId: string; key: string } | null): void {
  const lines = [`\nbomcore listening on ${address} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`];
  if (!demo) {
    lines.push('Create an API key with: npx bomcore key create --shop <shop id> --scopes read,write');
  } else {
    lines.push(
      `\nRead-write API key for shop "${demo.shopId}" (valid until the next start):\n\n  ${demo.key}\n`,
      'The examples of README.md and docs/quick-start.md read it from BOMCORE_KEY; in another terminal:',
      `  export BOMCORE_KEY=${demo.key}\n`,
      'Try:',
      `  curl -s ${address}/api/v1/locations -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s "${address}/api/v1/raw-materials?search=wax&pageSize=5" -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s ${address}/api/v1/bills-of-materials/BOM-1001/buildable -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s "${address}/api/v1/order-bom-breakdown?ids=5001,5002" -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s "${address}/api/v1/work-orders?status=ready,in_progress" -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s ${address}/graphql -H "Authorization: Bearer ${demo.key}" -H "Content-Type: application/json" -d '{"query":"{ locations { locationId name } }"}'`,
      `  curl -s ${address}/api/v1/openapi.json\n`,
    );
  }
  console.log(lines.join('\n'));
}

/**
 * Requests the HTTP server has received and not yet finished answering, counted on the raw server
 * (every route, whatever plugin registered it). `drain()` makes the keep-alive connections of those
 * requests close once answered: the server's close waits for every connection, and a client's idle
 * keep-alive connection would otherwise hold it (and the process) until the keep-alive timeout —
 * past the grace, where the process exits 1.
 */
function trackInFlight(server: Server): { count: () => number; drain: () => void } {
  const open = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    if (draining && !response.headersSent) response.setHeader('Connection', 'close');
    const finish = () => {
      open.delete(response);
      if (draining) setImmediate(() => server.closeIdleConnections());
    };
    response.once('finish', finish);
    response.once('close', finish);
  });
  return {
    count: () => open.size,
    drain: () => {
      draining = true;
      for (const response of open) if (!response.headersSent) response.setHeader('Connection', 'close');
      server.closeIdleConnections();
    },
  };
}

export async function serveCommand(args: string[]): Promise<void> {
  parse(args, {});
  const config = loadConfig();
  if (config.databaseUrl) {
    // Migrations run without the request timeouts (a backfill may take longer than a request may).
    const migrator = await openDatabase(forBatchWork(config));
    try {
      await migrate(migrator);
    } finally {
      await migrator.close();
    }
  }
  const orm = await openDatabase(config);
  if (!config.databaseUrl) await migrate(orm);
  const demo = config.databaseUrl ? null : await prepareEmbeddedDemo(orm, config);
  const app = await buildApp({ config, orm });
  // Pushes platform-linked stock moves from the outbox to the platform, in the background.
  const drainer = startOutboxDrainer({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: app.log.child({ component: 'outbox' }),
  });
  // Completes pending bill versions (content hash, change summary) shortly after their saves commit,
  // and after a restart the ones a stopped process left pending.
  const versionFiller = startBillVersionFiller({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: app.log.child({ component: 'bill-versions' }),
  });
  const inFlight = trackInFlight(app.server);
  // SIGTERM / SIGINT: stop accepting (new connections are refused, requests on open ones are 503),
  // answer every request already in flight, stop the background loops, close the database, exit 0.
  // Past BOMCORE_SHUTDOWN_GRACE_MS the process exits 1 anyway, saying how many it abandoned.
  closeWithGrace({
    delay: config.shutdownGraceMs,
    logger: false,
    onTimeout: (delay) => app.log.error({ graceMs: delay, abandoned: inFlight.count() }, 'shutdown grace elapsed with requests still in flight; exiting'),
    onSecondSignal: (signal) => app.log.warn({ signal, abandoned: inFlight.count() }, 'second signal: exiting without waiting'),
  }, async ({ signal, err }) => {
    const started = Date.now();
    if (err) app.log.error({ err }, 'closing after an error');
    app.log.info({ signal, inFlight: inFlight.count(), graceMs: config.shutdownGraceMs }, 'shutting down: draining in-flight requests');
    app.beginShutdown();
    inFlight.drain();
    await Promise.all([app.close(), drainer.stop(), versionFiller.stop()]);
    await orm.close();
    app.log.info({ drainedInMs: Date.now() - started }, 'shut down: every in-flight request answered');
  });
  const address = await app.listen({ host: config.host, port: config.port });
  printWelcome(config, address, demo);
}
