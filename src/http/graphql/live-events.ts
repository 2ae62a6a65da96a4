import type { FastifyInstance } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { listenForNotices } from '../../db/notices.ts';
import { authenticate } from '../../modules/auth/keys.ts';
import { EVENTS_CHANNEL, liveTopic, parseNotice, readNoticedEvents } from '../../modules/events/event-feed.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';

// GraphQL subscriptions' plumbing (docs/events.md, "Subscriptions"): the key comes in graphql-ws'
// `connection_init` payload (a browser's WebSocket cannot send an Authorization header), and each
// committed event — noticed through LISTEN, from whichever instance wrote it — is read once per
// process and published on its shop's in-process topic. A process reads a shop's events only while
// one of its connections belongs to that shop: other shops' writes cost it nothing but the notice.

/** The key of a `connection_init` payload: `{ authorization }`, `{ Authorization }` or `{ headers: { authorization } }`. */
export function keyOfConnectionInit(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const fields = payload as Record<string, unknown>;
  const headers = typeof fields.headers === 'object' && fields.headers !== null ? fields.headers as Record<string, unknown> : fields;
  const value = headers.authorization ?? headers.Authorization;
  return typeof value === 'string' ? value : undefined;
}

export interface LiveEventsDeps {
  orm: Orm;
  /** The shop context of an authenticated key (the HTTP requests' own, without a request). */
  contextFor: (key: { shopId: string; keyId: string; scopes: ShopContext['scopes'] }, connectionId: string) => ShopContext;
}

const SHOP = Symbol('live shop');

interface PubSub { publish(event: { topic: string; payload: unknown }): void }

/** The `/graphql` side: mercurius' `subscription` options, and `attach` to hand it mercurius' pubsub once registered. */
export type LiveSubscriptions = Awaited<ReturnType<typeof liveSubscriptions>>;

/** Listens for committed events (closing the app stops it) and returns what `/graphql` needs to serve subscriptions. */
export async function liveSubscriptions(app: FastifyInstance, deps: LiveEventsDeps) {
  const shops = new Map<string, number>();
  let pubsub: PubSub | null = null;
  let connections = 0;
  let queue: Promise<void> = Promise.resolve();
  const publish = (payload: string) => {
    const notice = parseNotice(payload);
    if (!notice || !pubsub || !shops.has(notice.shopId)) return;
    const target = pubsub;
    // One notice after another: a shop's events reach subscribers in sequence order.
    queue = queue.then(async () => {
      const events = await readNoticedEvents(deps.orm.em.fork(), notice);
      for (const event of events) target.publish({ topic: liveTopic(event.shopId), payload: event });
    }).catch((error: unknown) => app.log.warn({ err: error, notice }, 'live events of a notice could not be read; subscribers miss them'));
  };
  const listener = await listenForNotices(deps.orm, EVENTS_CHANNEL, publish, app.log);
  app.addHook('onClose', () => listener.close());

  return {
    attach: (graphqlPubsub: PubSub) => {
      pubsub = graphqlPubsub;
    },
    options: {
    keepAlive: 15_000,
    onConnect: async ({ payload }: { payload?: unknown }): Promise<Record<string | symbol, unknown> | false> => {
      const key = await authenticate(deps.orm.em.fork(), keyOfConnectionInit(payload));
      if (typeof key === 'string' || !key.scopes.includes('read')) return false;
      shops.set(key.shopId, (shops.get(key.shopId) ?? 0) + 1);
      connections += 1;
      return { ...deps.contextFor(key, `ws-${connections}`), [SHOP]: key.shopId };
    },
    onDisconnect: (context: Record<string | symbol, unknown>) => {
      const shopId = context[SHOP];
      if (typeof shopId !== 'string') return;
      const left = (shops.get(shopId) ?? 1) - 1;
      if (left > 0) shops.set(shopId, left);
      else shops.delete(shopId);
    },
    },
  };
}
