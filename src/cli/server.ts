import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { embeddedDataDir, forBatchWork, migrate, openDatabase, recordAdminSocket } from '../database.ts';
import { startBillVersionFiller } from '../modules/recipes/bill-version-filler.ts';
import { startOutboxDrainer } from '../modules/stock/outbox-drainer.ts';
import { startWebhookDispatcher } from '../modules/events/webhook-dispatcher.ts';
import { webhookFollowers } from '../composition.ts';
import { startWebhookApplier } from '../platform/shopify/webhooks/apply.ts';
import { startReconciler } from './shop-link.ts';
import { startAdminSocket, type AdminSocket } from './admin-socket.ts';
import { CommandError } from './args.ts';
import { prepareEmbeddedDemo, printWelcome } from './demo-shop.ts';
import { portProblem } from './serve.ts';

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

/** Opens the database, starts the HTTP server and the background loops, and stops them all on SIGTERM / SIGINT. */
export async function runServer(config: Config): Promise<void> {
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
  const dataDir = embeddedDataDir(config);
  // The embedded database, on disk or in memory (`memory://`): this process is its only user.
  const embedded = !config.databaseUrl;
  if (embedded) await migrate(orm);
  const demo = embedded ? await prepareEmbeddedDemo(orm, config, dataDir) : null;
  const app = await buildApp({ config, orm });
  // On the embedded database no other process may open it: `bomcore key` and `export` come here.
  let admin: AdminSocket | null = null;
  if (dataDir) {
    admin = await startAdminSocket({ orm, dataDir, config, log: app.log.child({ component: 'admin-socket' }) });
    recordAdminSocket(orm, admin.path);
  }
  // Pushes platform-linked stock moves from the outbox to the platform, in the background.
  const drainer = startOutboxDrainer({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: app.log.child({ component: 'outbox' }),
  });
  // Delivers events to the shops' webhook endpoints (signed, retried, in order per resource).
  const webhooks = startWebhookDispatcher({ orm, config, logger: app.log.child({ component: 'webhooks' }) });
  // Applies the Shopify webhooks POST /webhooks/shopify stored, in Shopify's time order; platform-linked materials follow.
  const webhookApplier = startWebhookApplier({
    orm, intervalMs: config.outboxDrainIntervalMs, batchSize: config.outboxDrainBatchSize, logger: app.log.child({ component: 'shopify-webhooks' }),
    followers: webhookFollowers(config),
  });
  // Re-reads from Shopify what changed since each connected shop's last pass, so a missed webhook heals within the interval.
  const reconciler = startReconciler(orm, config, { intervalMs: config.shopifyReconcileIntervalS * 1000, logger: app.log.child({ component: 'shopify-reconcile' }) });
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
    await Promise.all([app.close(), admin?.close(), drainer.stop(), webhooks.stop(), webhookApplier.stop(), reconciler.stop(), versionFiller.stop()]);
    await orm.close();
    app.log.info({ drainedInMs: Date.now() - started }, 'shut down: every in-flight request answered');
  });
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Taken between the check of serve.ts and now: the same sentence, no stack.
    const problem = portProblem(error as NodeJS.ErrnoException, config.host, config.port);
    throw problem ? new CommandError(problem) : error;
  }
  printWelcome(config, address, demo);
}
