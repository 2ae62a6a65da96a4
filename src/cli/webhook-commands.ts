import type { Config } from '../kernel/config.ts';
import type { Orm } from '../app/database.ts';
import type { WebhookEndpointView } from '../modules/events/webhook-endpoints.service.ts';
import { answerBody, onRunningServer, type AdminRequest } from './admin-client.ts';
import { parse, requiredString, UsageError } from './args.ts';

// `bomcore webhook create|list|delete`: a shop's webhook endpoints from the command line. The same
// service functions as GraphQL's; on the embedded database with a server running, through its
// admin socket (the server owns the database).

type Endpoints = typeof import('../modules/events/webhook-endpoints.service.ts');

export async function webhookCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'create': return createEndpoint(rest);
    case 'list': return listEndpoints(rest);
    case 'delete': return deleteEndpoint(rest);
    default: throw new UsageError('use: bomcore webhook create|list|delete');
  }
}

async function run<T>(request: AdminRequest, local: (endpoints: Endpoints, orm: Orm, config: Config) => Promise<T>): Promise<T> {
  const { loadConfig } = await import('../kernel/config.ts');
  return onRunningServer(loadConfig(), request, (answer) => JSON.parse(answerBody(answer).toString('utf8')) as T, async () => {
    const [endpoints, { withDatabase }] = await Promise.all([import('../modules/events/webhook-endpoints.service.ts'), import('./database.ts')]);
    return withDatabase((orm, config) => local(endpoints, orm, config));
  });
}

/**
 * A new endpoint's shop must exist, as for `key create` (an endpoint of a shop that does not exist
 * would never receive anything): 404-like refusal naming the shop, on both paths.
 */
async function requireShop(orm: Orm, shopId: string): Promise<void> {
  const [{ shopExists }, { DomainError }] = await Promise.all([import('../modules/shops/shop-settings.ts'), import('../kernel/domain-error.ts')]);
  if (!(await shopExists(orm.em.fork(), shopId))) throw DomainError.notFound('shop', shopId);
}

/**
 * What a refused private address means here: the process that checks the URL, and later delivers to
 * it, reads BOMCORE_WEBHOOKS_ALLOW_PRIVATE. Sent to a running server, that is the server, so setting
 * the variable on this command changes nothing.
 */
function explainPrivateRefusal(error: unknown, viaServer: boolean): never {
  if (viaServer && error instanceof Error && error.message.includes('BOMCORE_WEBHOOKS_ALLOW_PRIVATE')) {
    error.message += '. The running `bomcore serve` checked it and delivers to it: restart the server with BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1 (on this command the variable changes nothing)';
  }
  throw error;
}

const caller = (orm: Orm, config: Config, shopId: string) => {
  const em = orm.em.fork();
  em.setFilterParams('tenant', { shopId });
  return { shopId, em, config };
};

/** The topics of --topics, checked against the vocabulary before anything is sent. */
async function topicsOf(text: string): Promise<string[]> {
  const { EVENT_TOPICS, isEventTopic } = await import('../modules/events/event-vocabulary.ts');
  const topics = text.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = topics.filter((t) => !isEventTopic(t));
  if (topics.length === 0 || unknown.length > 0) throw new UsageError(`--topics: ${unknown.length > 0 ? `unknown ${unknown.join(', ')}` : 'name at least one'}; topics: ${EVENT_TOPICS.join(', ')}`);
  return topics;
}

async function createEndpoint(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, url: { type: 'string' }, topics: { type: 'string' }, description: { type: 'string' }, json: { type: 'boolean' } });
  const input = {
    shopId: requiredString(values.shop, '--shop'), url: requiredString(values.url, '--url'),
    topics: await topicsOf(requiredString(values.topics, '--topics')), description: values.description ?? null,
  };
  let local = false;
  const created = await run<{ endpoint: WebhookEndpointView; secret: string }>({ method: 'POST', path: '/webhooks', body: input }, async (endpoints, orm, config) => {
    local = true;
    await requireShop(orm, input.shopId);
    return endpoints.createWebhookEndpoint(caller(orm, config, input.shopId), input);
  }).catch((error: unknown) => explainPrivateRefusal(error, !local));
  if (values.json) {
    console.log(JSON.stringify({ id: created.endpoint.endpointId, secret: created.secret }));
    return;
  }
  console.log(`webhook endpoint ${created.endpoint.endpointId} for shop ${input.shopId}: ${created.endpoint.url} (${created.endpoint.topics.join(',')})`);
  console.log(`\n  ${created.secret}\n`);
  console.log('The signing secret is shown only now: verify the webhook-signature header with it (docs/events.md).');
}

async function listEndpoints(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, json: { type: 'boolean' } });
  const shopId = requiredString(values.shop, '--shop');
  const list = await run<WebhookEndpointView[]>({ method: 'GET', path: `/webhooks?shop=${encodeURIComponent(shopId)}` },
    (endpoints, orm, config) => endpoints.listWebhookEndpoints(caller(orm, config, shopId)));
  if (values.json) {
    console.log(JSON.stringify(list.map((e) => ({ id: e.endpointId, url: e.url, topics: e.topics, enabled: e.enabled, disabledReason: e.disabledReason }))));
    return;
  }
  if (list.length === 0) console.log(`no webhook endpoints for shop ${shopId}`);
  for (const e of list) console.log(`${e.endpointId}\t${e.url}\t${e.topics.join(',')}\t${e.enabled ? 'enabled' : `disabled: ${e.disabledReason ?? ''}`}`);
}

async function deleteEndpoint(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { shop: { type: 'string' } }, 1);
  const id = positionals[0];
  if (!id) throw new UsageError('use: bomcore webhook delete ID --shop S');
  const shopId = requiredString(values.shop, '--shop');
  await run({ method: 'POST', path: `/webhooks/${encodeURIComponent(id)}/delete`, body: { shopId } },
    (endpoints, orm, config) => endpoints.deleteWebhookEndpoint(caller(orm, config, shopId), id));
  console.log(`deleted ${id}`);
}

/** The admin socket's webhook commands (src/cli/admin-socket.ts): null when the path is none of them. */
export async function webhookAdminRoute(
  orm: Orm, config: Config, method: string, path: string[], query: URLSearchParams, body: () => Promise<Record<string, unknown>>,
): Promise<{ status: number; body: unknown } | null> {
  const endpoints = await import('../modules/events/webhook-endpoints.service.ts');
  const text = (value: unknown, field: string) => {
    if (typeof value !== 'string' || !value) throw new UsageError(`${field} is required`);
    return value;
  };
  if (method === 'POST' && path.length === 1) {
    const b = await body();
    const shopId = text(b.shopId, 'shopId');
    await requireShop(orm, shopId);
    const topics = Array.isArray(b.topics) ? b.topics.map(String) : [];
    return { status: 201, body: await endpoints.createWebhookEndpoint(caller(orm, config, shopId), { url: text(b.url, 'url'), topics, description: typeof b.description === 'string' ? b.description : null }) };
  }
  if (method === 'GET' && path.length === 1) return { status: 200, body: await endpoints.listWebhookEndpoints(caller(orm, config, text(query.get('shop'), 'shop'))) };
  if (method === 'POST' && path.length === 3 && path[2] === 'delete') {
    const b = await body();
    return { status: 200, body: await endpoints.deleteWebhookEndpoint(caller(orm, config, text(b.shopId, 'shopId')), path[1]!) };
  }
  return null;
}
