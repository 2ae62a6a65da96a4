import { AnswerClock } from './answer-clock.ts';
import type { CatalogSources } from './catalog-sources.ts';
import type { Config } from './config.ts';
import type { Em, Orm } from './orm-types.ts';
import type { PlatformGateway, PlatformGatewayFactory } from './platform-port/gateway.ts';
import type { Scope } from './scopes.ts';

/**
 * What every service receives first: the tenant, its EntityManager (forked per request, with the
 * tenant filter bound to the shop), the platform port and the request's identity.
 */
export interface ShopContext {
  shopId: string;
  em: Em;
  platform: PlatformGateway;
  config: Config;
  requestId: string;
  apiKeyId: string | null;
  scopes: readonly Scope[];
  /** The platform port bound to another EntityManager of this shop (a transaction's). */
  platformFor: (em: Em) => PlatformGateway;
  /** What the recipes module reads of the modules above it (src/kernel/catalog-sources.ts); wired by the composition root. */
  catalog: CatalogSources;
  /** The read's clock: what "now" is for this request, and where an answer says when it changes by the clock alone (src/kernel/answer-clock.ts). */
  clock: AnswerClock;
  /** Inside `inShopTransaction`: work to run last, just before the commit (the events module's write). */
  beforeCommit?: BeforeCommit;
}

/**
 * Work a transaction runs after its own, just before it commits, each piece once (by key). The
 * events module buffers a transaction's events here and writes them in one statement at the end,
 * so the shop's event-sequence row is the last lock the transaction takes (never held while it
 * waits for another lock: no deadlock through it) and is held only until the commit.
 */
export class BeforeCommit {
  readonly #work = new Map<string, (em: Em) => Promise<void>>();

  /** Registers `work` under `key` unless that key is registered already; it gets the outermost transaction's EntityManager. */
  once(key: string, work: (em: Em) => Promise<void>): void {
    if (!this.#work.has(key)) this.#work.set(key, work);
  }

  async run(em: Em): Promise<void> {
    for (const work of this.#work.values()) await work(em);
    this.#work.clear();
  }
}

export interface ContextDeps {
  orm: Orm;
  config: Config;
  /**
   * The platform port as services see it, per shop and EntityManager. The composition root builds it
   * (src/app/composition.ts, `contextDeps`: the adapter with the outbox's pending pushes included); the
   * kernel knows only the port.
   */
  platform: PlatformGatewayFactory;
  /** The catalogue sources the recipes module reads (src/kernel/catalog-sources.ts), implemented by their owners. */
  catalog: CatalogSources;
}

/** A fork of the ORM's EntityManager bound to one shop by the tenant filter. */
export function shopEm(orm: Orm, shopId: string): Em {
  const em = orm.em.fork();
  em.setFilterParams('tenant', { shopId });
  return em;
}

/**
 * A fresh context for one shop: its own EntityManager fork, bound to the shop by the tenant
 * filter, and the platform port of `deps.platform` on it.
 */
export function shopContextFor(
  deps: ContextDeps,
  shopId: string,
  identity: { requestId: string; apiKeyId: string | null; scopes: readonly Scope[] },
  clock: AnswerClock = new AnswerClock(),
): ShopContext {
  const em = shopEm(deps.orm, shopId);
  const platformFor = (bound: Em) => deps.platform({ shopId, em: bound });
  return { shopId, em, platform: platformFor(em), platformFor, config: deps.config, catalog: deps.catalog, clock, ...identity };
}

/**
 * Runs `work` in one database transaction with a shop context bound to it (its EntityManager and
 * platform port): everything the work reads and writes commits or rolls back together.
 */
export function inShopTransaction<T>(ctx: ShopContext, work: (tx: ShopContext) => Promise<T>): Promise<T> {
  return ctx.em.transactional(async (em) => {
    const bound = em as Em;
    // A transaction inside another one leaves its before-commit work to the outer one.
    const beforeCommit = ctx.beforeCommit ?? new BeforeCommit();
    const result = await work({ ...ctx, em: bound, platform: ctx.platformFor(bound), beforeCommit });
    if (!ctx.beforeCommit) await beforeCommit.run(bound);
    return result;
  });
}
