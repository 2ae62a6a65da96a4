import { readFileSync, statSync } from 'node:fs';
import { CommandError, parse, requiredString, UsageError } from './args.ts';
import { Progress } from './progress.ts';

// `bomcore shop connect|sync|reconcile|status|disconnect`: a shop's link to its Shopify store. They open the
// configured database themselves; on the embedded database, stop `bomcore serve` first (or use
// PostgreSQL, where the server and the CLI share the database).

export async function shopCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'connect': return connectCommand(rest);
    case 'sync': return syncCommand(rest);
    case 'status': return statusCommand(rest);
    case 'disconnect': return disconnectCommand(rest);
    case 'retry-pushes': return retryPushesCommand(rest);
    case 'reconcile': return reconcileCommand(rest);
    default: throw new UsageError('use: bomcore shop connect|sync|reconcile|status|disconnect|retry-pushes');
  }
}

/** A secret (an access token, a client secret) from its file: the first line, trimmed; a file others can read is refused. */
function readSecretFile(file: string, what: string): string {
  let text: string;
  try {
    const mode = statSync(file).mode;
    if ((mode & 0o077) !== 0) throw new CommandError(`${file} can be read by other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it first`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const secret = text.split('\n')[0]!.trim();
  if (secret === '') throw new CommandError(`the ${what} file ${file} is empty`);
  return secret;
}

/** Shopify calls webhook subscriptions over HTTPS only; http is accepted for a local emulator or proxy. */
function webhookUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--webhook-url must be a URL like https://bomcore.example.com/webhooks/shopify, got "${text}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`--webhook-url must be an https URL, got "${text}"`);
  return url.toString();
}

async function connectCommand(args: string[]): Promise<void> {
  const { values } = parse(args, {
    shop: { type: 'string' }, domain: { type: 'string' }, 'token-file': { type: 'string' }, 'client-id': { type: 'string' }, 'client-secret-file': { type: 'string' },
    'api-version': { type: 'string' }, 'webhook-url': { type: 'string' }, 'no-sync': { type: 'boolean' }, json: { type: 'boolean' },
  });
  const shopId = requiredString(values.shop, '--shop');
  const domain = requiredString(values.domain, '--domain');
  const grant = connectGrant(values);
  const webhookUri = values['webhook-url'] === undefined ? null : webhookUrl(values['webhook-url']);
  const [{ withDatabase }, link] = await Promise.all([import('./database.ts'), import('./shop-link.ts')]);
  await withDatabase(async (orm, config) => {
    const result = await link.connect(orm, config, { shopId, domain, grant, apiVersion: values['api-version'], webhookUri });
    if (!values.json) {
      console.log(`shop ${shopId} connected to ${result.storeName} (${result.connection.domain}, Admin API ${result.connection.apiVersion})`);
      console.log(`  scopes: ${result.grantedScopes.join(', ')}`);
      if (webhookUri) console.log(`  webhooks: ${result.webhooksRegistered.length} topics → ${webhookUri}`);
    }
    const report = values['no-sync'] ? null : await runSync(link, orm, config, shopId, values.json === true);
    if (values.json) console.log(JSON.stringify({ shopId, domain: result.connection.domain, storeName: result.storeName, scopes: result.grantedScopes, webhooks: result.webhooksRegistered, sync: report }));
  });
}

/**
 * The way in: `--client-id` with `--client-secret-file` (an app of the store's own organisation:
 * the client credentials grant, a 24-hour token got again as it ends), or `--token-file` (a legacy
 * admin-created app's token). One of the two, never both.
 */
function connectGrant(values: { 'token-file'?: string; 'client-id'?: string; 'client-secret-file'?: string }): import('../platform/shopify/connect.ts').ConnectGrant {
  const credentials = values['client-id'] !== undefined || values['client-secret-file'] !== undefined;
  if (credentials && values['token-file'] !== undefined) throw new UsageError('give either --token-file or --client-id with --client-secret-file, not both');
  if (credentials) {
    const clientId = requiredString(values['client-id'], '--client-id').trim();
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(clientId)) throw new UsageError(`--client-id must be the app's client ID (letters and digits, from the Dev Dashboard), got "${clientId}"`);
    return { kind: 'client_credentials', clientId, clientSecret: readSecretFile(requiredString(values['client-secret-file'], '--client-secret-file'), 'client secret') };
  }
  if (values['token-file'] === undefined) throw new UsageError('give --client-id with --client-secret-file (an app of your organisation), or --token-file (a legacy admin-created app\'s token)');
  return { kind: 'token', accessToken: readSecretFile(values['token-file'], 'token') };
}

async function runSync(link: typeof import('./shop-link.ts'), orm: import('../db/orm.ts').Orm, config: import('../kernel/config.ts').Config, shopId: string, quiet: boolean) {
  const bar = new Progress();
  let phase = '';
  // Memory the sync itself takes: the resident size sampled while it runs, over the size at its start
  // (the embedded database's own heap is already there; it is what PostgreSQL runs outside this process).
  const rssAtStart = process.memoryUsage().rss;
  let rssPeak = rssAtStart;
  let heapPeak = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapTotal);
  }, 50);
  try {
    const report = await link.sync(orm, config, shopId, (next, count, total) => {
      if (total !== null) return bar.update('sync', next, count, total, 'objects');
      if (next !== phase) bar.step('sync', next === 'locations' ? 'reading locations' : `Shopify is exporting ${next}`);
      phase = next;
    });
    bar.finish();
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    // The process's peak memory so far, and what the sync added to it (it streams its exports).
    const maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    const syncRssGrowthMiB = Math.round((rssPeak - rssAtStart) / 2 ** 20);
    if (!quiet) {
      console.log(`synced shop ${shopId} in ${report.seconds.toFixed(1)} s: ${report.locations} locations, ${report.variants} variants, ${report.levels} levels, `
        + `${report.orders} open orders (${report.lineItems} line items); ${report.materialsUpdated} platform-linked materials updated; peak memory ${maxRssMiB} MiB (${syncRssGrowthMiB} MiB for the sync)`);
    }
    return { ...report, maxRssMiB, syncRssGrowthMiB, heapPeakMiB: Math.round(heapPeak / 2 ** 20) };
  } finally {
    clearInterval(sampler);
    bar.finish();
  }
}

async function syncCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, json: { type: 'boolean' } });
  const shopId = requiredString(values.shop, '--shop');
  const [{ withDatabase }, link] = await Promise.all([import('./database.ts'), import('./shop-link.ts')]);
  await withDatabase(async (orm, config) => {
    const report = await runSync(link, orm, config, shopId, values.json === true);
    if (values.json) console.log(JSON.stringify(report));
  });
}

async function statusCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, json: { type: 'boolean' } });
  const shopId = requiredString(values.shop, '--shop');
  const [{ withDatabase }, link] = await Promise.all([import('./database.ts'), import('./shop-link.ts')]);
  await withDatabase(async (orm) => {
    const status = await link.status(orm, shopId);
    if (values.json) {
      console.log(JSON.stringify(status));
      return;
    }
    const c = status.connection;
    if (!c) {
      console.log(`shop ${shopId}: not connected (the local platform store serves it)`);
    } else {
      console.log(`shop ${shopId}: connected to ${c.storeName} (${c.domain}, Admin API ${c.apiVersion}) since ${c.connectedAt.toISOString()}`);
      console.log(`  last sync: ${c.syncCompletedAt ? `${c.syncCompletedAt.toISOString()} (${Object.entries(c.syncCounts ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')})` : 'never completed'}`);
      if (c.syncError) console.log(`  last sync failed: ${c.syncError}`);
      console.log(`  webhooks: ${c.webhookUri ? `${c.webhookTopics?.length ?? 0} topics → ${c.webhookUri}` : 'none registered (connect with --webhook-url, or subscribe them in shopify.app.toml)'}`);
      const drift = c.reconcileDrift ? Object.entries(c.reconcileDrift).map(([k, v]) => `${k} ${v}`).join(', ') : '';
      console.log(`  last reconcile: ${c.reconciledAt ? `${c.reconciledAt.toISOString()} (drift: ${drift || 'none'})${c.reconciledThrough ? `; Shopify's changes mirrored up to ${c.reconciledThrough.toISOString()}` : ''}${c.reconcileUnfinished ? '; catching up' : ''}` : 'never'}`);
      if (c.reconcileError) console.log(`  last reconcile failed: ${c.reconcileError}`);
      if (c.failingSince) console.log(`  the store has not answered since ${c.failingSince.toISOString()}: reads serve its data as last read at ${c.lastContactAt?.toISOString() ?? 'no completed sync'} (PLATFORM_STALE)`);
      console.log(`  token: ${c.grantKind === 'token' ? 'a token file (never expires)' : `${c.grantKind === 'client_credentials' ? `client credentials of app ${c.clientId}` : 'install link (expiring offline token, renewed with its refresh token)'}; the current one ends ${c.tokenExpiresAt?.toISOString() ?? 'never'}`}`);
      if (c.reauthorizeSince) console.log(`  Shopify refused to renew the token at ${c.reauthorizeSince.toISOString()}${c.reauthorizeReason ? ` (${c.reauthorizeReason})` : ''}: install the app again from the install link, or connect again (PLATFORM_REAUTHORIZE)`);
      if (c.uninstalledAt) console.log(`  the store uninstalled the app at ${c.uninstalledAt.toISOString()}: its token no longer works; reinstall it and connect again with the new token`);
    }
    const p = status.pushes;
    console.log(`  stock pushes: ${p.pending} pending${p.failing > 0 ? `, ${p.failing} failing` : ''}${p.stopped > 0 ? `, ${p.stopped} stopped (refused for good: fix the cause, then bomcore shop retry-pushes)` : ''}`
      + `${p.oldestPendingAt ? ` (oldest ${p.oldestPendingAt})` : ''}`);
  }, { migrate: true });
}

async function disconnectCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' } });
  const shopId = requiredString(values.shop, '--shop');
  const [{ withDatabase }, link] = await Promise.all([import('./database.ts'), import('./shop-link.ts')]);
  await withDatabase(async (orm) => {
    const removed = await link.disconnect(orm, shopId);
    console.log(removed ? `shop ${shopId} disconnected: its token is deleted; the last synced state stays and the local platform store serves it`
      : `shop ${shopId} was not connected`);
  });
}

async function retryPushesCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' } });
  const shopId = requiredString(values.shop, '--shop');
  const [{ withDatabase }, link] = await Promise.all([import('./database.ts'), import('./shop-link.ts')]);
  await withDatabase(async (orm) => {
    const released = await link.retryPushes(orm, shopId);
    console.log(`${released} stopped stock push(es) of shop ${shopId} released: the drainer of a running server tries them again`);
  });
}

async function reconcileCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, json: { type: 'boolean' } });
  const shopId = requiredString(values.shop, '--shop');
  const [{ withDatabase }, link] = await Promise.all([import('./database.ts'), import('./shop-link.ts')]);
  await withDatabase(async (orm, config) => {
    const report = await link.reconcile(orm, config, shopId);
    if (values.json) {
      console.log(JSON.stringify(report));
      return;
    }
    const d = report.drift;
    console.log(`reconciled shop ${shopId} in ${(report.ms / 1000).toFixed(1)} s: read ${report.read.products} changed products, ${report.read.levels} levels, ${report.read.orders} orders; `
      + `drift: ${d.variants} variants, ${d.levels} levels, ${d.orders} orders, ${d.locations} locations`
      + `${report.finished ? '' : ' (the window is not finished: the next pass goes on with it)'}`);
  });
}
