import cluster from 'node:cluster';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app/app.ts';
import type { Config } from '../kernel/config.ts';
import { embeddedDataDir, forBatchWork, migrate, openDatabase, recordAdminSocket, type Orm } from '../app/database.ts';
import { primaryCounters } from '../http/limits/cluster-counters.ts';
import { startBillVersionFiller } from '../modules/boms/bill-version-filler.ts';
import { startOutboxDrainer } from '../modules/stock/outbox-drainer.ts';
import { startWebhookDispatcher } from '../modules/events/webhook-dispatcher.ts';
import { contextDeps, platformAdapter, webhookFollowers } from '../app/composition.ts';
import { startWebhookApplier } from '../platform/shopify/webhooks/apply.ts';
import { startReconciler, webhookApiFor } from './shop-link.ts';
import { startAdminSocket, type AdminSocket } from './admin-socket.ts';
import { CommandError } from './args.ts';
import { prepareEmbeddedDemo, printWelcome } from './demo-shop.ts';
import { portProblem } from './port-problem.ts';
import { startIdleMemoryRelease } from './idle-memory.ts';
import { migrationsFound, StartupSteps } from './startup-steps.ts';

// The server of `bomcore serve`, imported by serve.ts once the port is known to be free.

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

/** The background passes of `serve`, started together, stopped together. */
function startBackgroundPasses(orm: Orm, config: Config, log: FastifyBaseLogger): { stop(): Promise<void> } {
  // Pushes platform-linked stock moves from the outbox to the platform, in the background: to Shopify
  // for a shop connected to a store, else to the local platform store (the demo, a loaded dataset).
  // The same passes set the storefront levels of finished goods whose BOMs ask for it (docs/shopify.md).
  const platform = platformAdapter(config);
  const drainer = startOutboxDrainer({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: log.child({ component: 'outbox' }),
    platform, storefront: contextDeps(orm, config, platform),
  });
  // Delivers events to the shops' webhook endpoints (signed, retried, in order per resource).
  const webhooks = startWebhookDispatcher({ orm, config, logger: log.child({ component: 'webhooks' }) });
  // Applies the Shopify webhooks POST /webhooks/shopify stored, in Shopify's time order; platform-linked materials follow.
  const webhookApplier = startWebhookApplier({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: log.child({ component: 'shopify-webhooks' }),
    followers: webhookFollowers(config), apiFor: webhookApiFor(config),
  });
  // Re-reads from Shopify what changed since each connected shop's last pass, so a missed webhook heals within the interval.
  const reconciler = startReconciler(orm, config, { intervalMs: config.shopifyReconcileIntervalS * 1000, logger: log.child({ component: 'shopify-reconcile' }) });
  // Completes pending bill versions (content hash, change summary) shortly after their saves commit,
  // and after a restart the ones a stopped process left pending.
  const versionFiller = startBillVersionFiller({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: log.child({ component: 'bill-versions' }),
  });
  return { stop: async () => void (await Promise.all([drainer.stop(), webhooks.stop(), webhookApplier.stop(), reconciler.stop(), versionFiller.stop()])) };
}

/**
 * Opens the database, starts the HTTP server and the background loops, and stops them all on SIGTERM / SIGINT.
 * A worker of `serve --workers N` (src/cli/cluster.ts) finds the database migrated by its primary, shares
 * its primary's rate-limit buckets (without REDIS_URL), runs the background passes only when its primary
 * says so (one worker at a time), drains when its primary says so, and leaves the welcome to the primary.
 */
export async function runServer(config: Config): Promise<void> {
  const worker = cluster.isWorker;
  // One line per step with its time (src/cli/startup-steps.ts); a worker's primary speaks for it.
  const steps = worker ? null : new StartupSteps();
  const step = <T>(label: string, work: () => Promise<T>, found?: (result: T) => string | null, options?: { logs?: boolean }) => (steps ? steps.run(label, work, found, options) : work());
  if (config.databaseUrl && !worker) {
    // Migrations run without the request timeouts (a backfill may take longer than a request may).
    await step('applying migrations to PostgreSQL', async () => {
      const migrator = await openDatabase(forBatchWork(config));
      try {
        return await migrate(migrator);
      } finally {
        await migrator.close();
      }
    }, migrationsFound);
  }
  const dataDir = embeddedDataDir(config);
  // The embedded database, on disk or in memory (`memory://`): this process is its only user.
  const embedded = !config.databaseUrl;
  const orm = embedded ? await step(`opening the embedded database (${dataDir ?? 'in memory'})`, () => openDatabase(config)) : await openDatabase(config);
  if (embedded) await step('applying migrations', () => migrate(orm), migrationsFound);
  let loaded: string | null = null;
  const demo = embedded
    ? await step('preparing the demo shop', () => prepareEmbeddedDemo(orm, config, dataDir, (line) => (loaded = line.replace(/\.$/, ''))), () => loaded ?? 'loaded before')
    : null;
  const app = await step('loading the HTTP server', () => buildApp({ config, orm, sharedCounters: worker ? primaryCounters(config.rateLimitBurst) : undefined }));
  // On the embedded database no other process may open it: `bomcore key` and `export` come here.
  let admin: AdminSocket | null = null;
  if (dataDir) {
    admin = await startAdminSocket({ orm, dataDir, config, log: app.log.child({ component: 'admin-socket' }) });
    recordAdminSocket(orm, admin.path);
  }
  let background: { stop(): Promise<void> } | null = worker ? null : startBackgroundPasses(orm, config, app.log);
  const inFlight = trackInFlight(app.server);
  const idleMemory = startIdleMemoryRelease({ server: app.server, idleMs: config.idleGcMs, growthBytes: config.idleGcGrowthMb * 1024 * 1024, log: app.log.child({ component: 'memory' }) });
  // SIGTERM / SIGINT: stop accepting (new connections are refused, requests on open ones are 503),
  // answer every request already in flight, stop the background loops, close the database, exit 0.
  // Past BOMCORE_SHUTDOWN_GRACE_MS the process exits 1 anyway, saying how many it abandoned.
  let closing = false;
  const shutdown = closeWithGrace({
    delay: config.shutdownGraceMs,
    logger: false,
    // A worker's signals are handled below: one drain whichever comes first.
    skip: worker ? ['SIGINT', 'SIGTERM'] : [],
    onTimeout: (delay) => app.log.error({ graceMs: delay, abandoned: inFlight.count() }, 'shutdown grace elapsed with requests still in flight; exiting'),
    onSecondSignal: (signal) => app.log.warn({ signal, abandoned: inFlight.count() }, 'second signal: exiting without waiting'),
  }, async ({ signal, err }) => {
    closing = true;
    const started = Date.now();
    if (err) app.log.error({ err }, 'closing after an error');
    app.log.info({ signal, inFlight: inFlight.count(), graceMs: config.shutdownGraceMs }, 'shutting down: draining in-flight requests');
    app.beginShutdown();
    idleMemory?.stop();
    inFlight.drain();
    await Promise.all([app.close(), admin?.close(), background?.stop()]);
    await orm.close();
    app.log.info({ drainedInMs: Date.now() - started }, 'shut down: every in-flight request answered');
  });
  if (worker) {
    // The primary's drain, a terminal's Ctrl-C (sent to the whole process group) and a service manager's
    // SIGTERM (often sent to every process of the service) may all reach a worker, in any order: the first
    // drains it, the others are not a "second signal". A second signal is the primary's: it exits, and its
    // workers exit with it (node:cluster ends a worker whose primary is gone).
    const drain = () => {
      if (closing) return;
      closing = true;
      void shutdown.close();
    };
    process.on('SIGINT', drain);
    process.on('SIGTERM', drain);
    process.on('message', (message: { bomcore?: string } | null) => {
      if (message?.bomcore === 'drain') drain();
      if (message?.bomcore === 'background' && !closing && !background) {
        background = startBackgroundPasses(orm, config, app.log);
        app.log.info({ worker: process.pid }, 'background passes: this worker runs them');
      }
    });
  }
  // Each read route once, in-process, before the first client's request (BOMCORE_WARM_UP; src/http/admission/warm-up.ts).
  if (config.warmUp) {
    await step('preparing each read route once', () => app.warmUp(), (report) => `${report.ran} ready${report.skipped ? `, ${report.skipped} left for their first request` : ''}`, { logs: true });
  }
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Taken between the check of serve.ts and now: the same sentence, no stack.
    const problem = portProblem(error as NodeJS.ErrnoException, config.host, config.port);
    throw problem ? new CommandError(problem) : error;
  }
  if (!worker) printWelcome(config, address, demo);
}
