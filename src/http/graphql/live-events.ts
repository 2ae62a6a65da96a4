import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { listenForNotices } from '../../db/notices.ts';
import { authenticate, invalidKeyIds, type AuthenticatedKey } from '../../modules/auth/keys.ts';
import { EVENTS_CHANNEL, liveTopic, parseNotice, readNoticedEvents } from '../../modules/events/event-feed.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { LiveConfig } from '../../kernel/config.ts';
import type { AuthThrottle } from '../auth/auth-throttle.ts';
import { authFailureDetail } from '../auth/auth.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { CLOSE, guardSocket, type GuardedSocket, type SocketGuardOptions, type SocketState } from './live-socket.ts';

// GraphQL subscriptions' plumbing (docs/events.md, "Subscriptions"): the key comes in graphql-ws'
// `connection_init` payload (a browser's WebSocket cannot send an Authorization header), and each
// committed event — noticed through LISTEN, from whichever instance wrote it — is read once per
// process and published on its shop's in-process topic. A process reads a shop's events only while
// one of its connections belongs to that shop: other shops' writes cost it nothing but the notice.
//
// Each authenticated connection is held in a registry (by key and by shop) from `connection_ack`
// until its socket closes, and released exactly once whatever closes it (mercurius may report one
// close several times): a shop is read while its set of connections is not empty, so a subscriber
// that drops cannot take its shop's other subscribers with it.

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
  limits: LiveConfig;
  /** The failed-authentication throttle of every request (src/http/auth/auth-throttle.ts). */
  authThrottle?: AuthThrottle;
  /** The keys' rate-limit budget: a connection costs one token, every event sent one more. */
  limiter?: RateLimiter;
}

const LIVE = Symbol('live connection');

interface PubSub { publish(event: { topic: string; payload: unknown }): void }

/** What mercurius' `onConnect` / `onDisconnect` are called on (its SubscriptionConnection): the socket and its context. */
interface MercuriusConnection { socket: GuardedSocket; context: { request?: FastifyRequest } }

/** The `/graphql` side: mercurius' `subscription` options, `attach` to hand it mercurius' pubsub, `guard` for each socket. */
export type LiveSubscriptions = Awaited<ReturnType<typeof liveSubscriptions>>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Listens for committed events (closing the app stops it) and returns what `/graphql` needs to serve subscriptions. */
export async function liveSubscriptions(app: FastifyInstance, deps: LiveEventsDeps) {
  const { limits } = deps;
  /** Open, authenticated connections by shop and by key (a Set: releasing one twice changes nothing). */
  const byShop = new Map<string, Set<SocketState>>();
  const byKey = new Map<string, Set<SocketState>>();
  const states = new WeakMap<GuardedSocket, SocketState>();
  let pubsub: PubSub | null = null;
  let connections = 0;
  let queue: Promise<void> = Promise.resolve();
  const publish = (payload: string) => {
    const notice = parseNotice(payload);
    if (!notice || !pubsub || !byShop.has(notice.shopId)) return;
    const target = pubsub;
    // One notice after another: a shop's events reach subscribers in sequence order.
    queue = queue.then(async () => {
      const events = await readNoticedEvents(deps.orm.em.fork(), notice);
      for (const event of events) target.publish({ topic: liveTopic(event.shopId), payload: event });
    }).catch((error: unknown) => app.log.warn({ err: error, notice }, 'live events of a notice could not be read; subscribers miss them'));
  };
  const listener = await listenForNotices(deps.orm, EVENTS_CHANNEL, publish, app.log);

  const add = (map: Map<string, Set<SocketState>>, id: string, state: SocketState) => {
    const set = map.get(id) ?? new Set();
    set.add(state);
    map.set(id, set);
  };
  const remove = (map: Map<string, Set<SocketState>>, id: string, state: SocketState) => {
    const set = map.get(id);
    if (!set) return;
    set.delete(state);
    if (set.size === 0) map.delete(id);
  };
  const release = (state: SocketState) => {
    if (!state.key) return;
    remove(byShop, state.key.shopId, state);
    remove(byKey, state.key.keyId, state);
  };

  // Revoked or expired keys: their open connections close within `keyCheckMs`, on every instance (each checks its own
  // connections' keys in the database, one statement per check, none while no connection is open).
  let checking = false;
  const checkKeys = async () => {
    if (checking || byKey.size === 0) return;
    checking = true;
    try {
      const gone = await invalidKeyIds(deps.orm.em.fork(), [...byKey.keys()]);
      for (const keyId of gone) {
        for (const state of [...(byKey.get(keyId) ?? [])]) state.close(CLOSE.forbidden, 'Forbidden: the API key was revoked or has expired');
      }
    } catch (error) {
      app.log.warn({ err: error }, 'live subscriptions: the keys of open connections could not be checked; next try in a moment');
    } finally {
      checking = false;
    }
  };
  const keyTimer = setInterval(() => void checkKeys(), limits.keyCheckMs);
  keyTimer.unref();
  app.addHook('onClose', async () => {
    clearInterval(keyTimer);
    await listener.close();
  });

  const pace = async (state: SocketState) => {
    const limiter = deps.limiter;
    if (!limiter || !state.key) return;
    for (;;) {
      const decision = await limiter.take(state.key.keyId, 1);
      if (decision.allowed || state.closed) return;
      await sleep(Math.max(1, decision.retryAfterSeconds) * 1000);
    }
  };

  /**
   * Authenticates a `connection_init` like a request (the failed-auth throttle first) and registers the connection
   * under its key and shop; refuses with the close code it deserves (null).
   */
  async function admit(state: SocketState, request: FastifyRequest | undefined, payload: unknown): Promise<AuthenticatedKey | null> {
    const header = keyOfConnectionInit(payload);
    const address = request?.ip ?? 'unknown';
    let attempt = null;
    if (deps.authThrottle) {
      const admitted = await deps.authThrottle.begin(address, header);
      if ('retryAfterSeconds' in admitted) {
        state.close(CLOSE.tooMany, `Too many failed authentications from this address; retry in ${admitted.retryAfterSeconds} s`);
        return null;
      }
      attempt = admitted.attempt;
    }
    let key: Awaited<ReturnType<typeof authenticate>>;
    try {
      key = await authenticate(deps.orm.em.fork(), header);
    } catch (error) {
      await attempt?.end('undecided');
      throw error;
    }
    await attempt?.end(typeof key === 'string' ? 'invalid' : 'valid');
    if (typeof key === 'string') {
      request?.log.info({ reason: key }, 'subscription authentication failed');
      state.close(CLOSE.forbidden, `Forbidden: ${authFailureDetail(key, header)}`);
      return null;
    }
    if (!key.scopes.includes('read')) {
      state.close(CLOSE.forbidden, 'Forbidden: subscriptions need the "read" scope');
      return null;
    }
    if (deps.limiter) {
      const decision = await deps.limiter.take(key.keyId, 1);
      if (!decision.allowed) {
        state.close(CLOSE.tooMany, `Rate limit exceeded: retry in ${decision.retryAfterSeconds} s`);
        return null;
      }
    }
    // The caps are checked and the connection registered with no wait in between: two connections cannot both take the last place.
    const ofKey = byKey.get(key.keyId)?.size ?? 0;
    if (ofKey >= limits.connectionsPerKey) {
      state.close(CLOSE.tooMany, `Too many connections: this API key holds ${ofKey}, the limit is ${limits.connectionsPerKey}`);
      return null;
    }
    const ofShop = byShop.get(key.shopId)?.size ?? 0;
    if (ofShop >= limits.connectionsPerShop) {
      state.close(CLOSE.tooMany, `Too many connections: this shop holds ${ofShop}, the limit is ${limits.connectionsPerShop}`);
      return null;
    }
    state.key = { keyId: key.keyId, shopId: key.shopId };
    add(byShop, key.shopId, state);
    add(byKey, key.keyId, state);
    return key;
  }

  return {
    attach: (graphqlPubsub: PubSub) => {
      pubsub = graphqlPubsub;
    },
    /** Guards a new socket (live-socket.ts) before mercurius takes it. */
    guard: (socket: GuardedSocket, check: SocketGuardOptions['check']): void => {
      const state = guardSocket(socket, { check, pace, maxSubscriptions: limits.subscriptionsPerConnection, initTimeoutMs: limits.initTimeoutMs });
      states.set(socket, state);
      // However the socket ends, its connection leaves the registry (once: a Set forgets a member once).
      socket.once('close', () => release(state));
    },
    options: {
      keepAlive: 15_000,
      async onConnect(this: MercuriusConnection, { payload }: { payload?: unknown }): Promise<Record<string | symbol, unknown> | false> {
        const state = states.get(this.socket);
        if (!state) return false;
        const key = await admit(state, this.context.request, payload);
        if (!key) return false;
        if (state.closed) {
          release(state);
          return false;
        }
        connections += 1;
        return { ...deps.contextFor(key, `ws-${connections}`), [LIVE]: state };
      },
      onDisconnect(context: Record<string | symbol, unknown>): void {
        const state = context[LIVE] as SocketState | undefined;
        if (state) release(state);
      },
    },
  };
}
