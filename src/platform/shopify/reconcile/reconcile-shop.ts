import type { Em } from '../../../db/orm.ts';
import type { ShopifyAdminApi } from '../admin-api.ts';
import type { StoredConnection } from '../connections.ts';
import { fromGid } from '../ids.ts';
import type { WebhookFollowers } from '../webhooks/apply.ts';
import { readLevels, readLocations, readOrders, readProducts, readRestOfFulfilmentLines, readRestOfLines, readRestOfVariants, windowQuery, type Budget } from './reads.ts';
import { noDrift, writeLevelsPage, writeLocationsPage, writeOrdersPage, writeProductsPage, type Drift, type PageResult } from './write-pages.ts';

/**
 * One reconciliation pass of one shop: what Shopify changed in a window of time — from where the
 * last finished window ended (or the last full sync started), less a margin, to the pass's start —
 * read page by page and written through the webhooks' guarded writes, so a missed webhook heals and
 * a late read never overwrites newer state. The window is read in steps (active locations, changed
 * products with their variants, changed levels location by location, changed orders); a pass stops
 * at its budget of requests or time and records where it stopped (the step and the cursor), and
 * the next pass goes on from there, so one shop's large or slow store takes bounded work per pass.
 */
export interface ReconcileShopOptions {
  api: ShopifyAdminApi;
  /** The database (not a transaction: each page is written in its own). */
  em: Em;
  connection: StoredConnection;
  followers?: WebhookFollowers;
  /** Admin API requests this pass may send. */
  maxRequests: number;
  /** Wall-clock time (ms) after which the pass starts no new request. */
  deadline: number;
  /** How far before the last window's end the next one starts: Shopify's clock and search index may lag bomcore's. */
  overlapMs: number;
  now?: () => Date;
}

export interface ReconcileShopResult {
  drift: Drift;
  /** Rows read from Shopify, by kind. */
  read: { locations: number; products: number; levels: number; orders: number };
  /** Levels of variants the mirror does not hold (left for the next window). */
  unmatched: number;
  requests: number;
  /** The window was read to its end (else the next pass goes on with it). */
  finished: boolean;
  /** Where the finished window ended; null when it did not finish. */
  through: Date | null;
  /** What the next pass goes on with; null when the window finished. */
  state: WindowState | null;
}

const STEPS = ['locations', 'products', 'levels', 'orders'] as const;
type Step = (typeof STEPS)[number];

/** An unfinished window, as the connection stores it between passes. */
export interface WindowState { since: string; until: string; step: Step; after: string | null; locations: string[]; locationIndex: number }

function startState(connection: StoredConnection, now: Date, overlapMs: number): WindowState {
  // A sync that ended read Shopify from its start on; a later failed one (started after it ended) replaced nothing.
  const synced = connection.syncStartedAt && connection.syncCompletedAt && connection.syncStartedAt <= connection.syncCompletedAt ? connection.syncStartedAt : connection.connectedAt;
  const base = connection.reconciledThrough ?? synced;
  return { since: new Date(base.getTime() - overlapMs).toISOString(), until: now.toISOString(), step: 'locations', after: null, locations: [], locationIndex: 0 };
}

function isWindowState(value: unknown): value is WindowState {
  const s = value as WindowState | null;
  return !!s && typeof s.since === 'string' && typeof s.until === 'string' && (STEPS as readonly string[]).includes(s.step) && Array.isArray(s.locations);
}

export async function reconcileShop(options: ReconcileShopOptions): Promise<ReconcileShopResult> {
  const { api, em, connection } = options;
  const shopId = connection.shopId;
  const now = options.now ?? (() => new Date());
  const state: WindowState = isWindowState(connection.reconcileState) ? { ...connection.reconcileState } : startState(connection, now(), options.overlapMs);
  const query = windowQuery(new Date(state.since), new Date(state.until));
  const result: ReconcileShopResult = { drift: noDrift(), read: { locations: 0, products: 0, levels: 0, orders: 0 }, unmatched: 0, requests: 0, finished: false, through: null, state };
  // A pass always finishes its first page, whatever it costs (an order with many lines and shipped
  // lines takes several requests): a budget smaller than one page would otherwise never move on.
  let wrotePage = false;
  const budget: Budget = {
    take() {
      if (wrotePage && (result.requests >= options.maxRequests || Date.now() >= options.deadline)) return false;
      result.requests += 1;
      return true;
    },
  };

  /** Writes a page in its own transaction (tenant-bound, as the webhook applier's); platform-linked materials follow the variants it changed. */
  async function write(page: (tx: Em) => Promise<PageResult>): Promise<void> {
    const fork = em.fork();
    fork.setFilterParams('tenant', { shopId });
    const done = await fork.transactional(async (tx) => {
      const r = await page(tx);
      if (r.variantIds.length > 0 && options.followers) await options.followers.variantsChanged(tx, shopId, [...new Set(r.variantIds)]);
      if (r.levels?.length && options.followers?.levelsChanged) await options.followers.levelsChanged(tx, shopId, r.levels);
      // Order execution applies each fulfilment id once, so an order read again (the window's overlap, a later pass) moves nothing twice.
      for (const order of r.orders ?? []) await options.followers?.orderChanged?.(tx, shopId, order, `reconcile:${order.orderId}@${state.until}`);
      return r;
    });
    wrotePage = true;
    for (const kind of Object.keys(done.drift) as (keyof Drift)[]) result.drift[kind] += done.drift[kind];
    result.unmatched += done.unmatched;
  }

  /** Moves to the next step (or location); false when the window is done. */
  function advance(): boolean {
    state.after = null;
    if (state.step === 'levels' && state.locationIndex + 1 < state.locations.length) {
      state.locationIndex += 1;
      return true;
    }
    const next = STEPS[STEPS.indexOf(state.step) + 1];
    if (!next) return false;
    state.step = next;
    state.locationIndex = 0;
    if (next === 'levels' && state.locations.length === 0) return advance();
    return true;
  }

  for (;;) {
    if (!budget.take()) return result;
    let hasNext: boolean;
    let cursor: string | null;
    switch (state.step) {
      case 'locations': {
        const page = await readLocations(api, state.after);
        if (state.after === null) state.locations = [];
        state.locations.push(...page.nodes.filter((n) => n.isActive).map((n) => fromGid('Location', n.id)));
        result.read.locations += page.nodes.length;
        await write((tx) => writeLocationsPage(tx, shopId, page.nodes));
        ({ hasNextPage: hasNext, endCursor: cursor } = page.pageInfo);
        break;
      }
      case 'products': {
        const page = await readProducts(api, query, state.after);
        for (const product of page.nodes) if (!await readRestOfVariants(api, product, budget)) return result;
        result.read.products += page.nodes.length;
        await write((tx) => writeProductsPage(tx, shopId, page.nodes));
        ({ hasNextPage: hasNext, endCursor: cursor } = page.pageInfo);
        break;
      }
      case 'levels': {
        const locationId = state.locations[state.locationIndex]!;
        const page = await readLevels(api, locationId, query, state.after);
        result.read.levels += page?.nodes.length ?? 0;
        if (page) await write((tx) => writeLevelsPage(tx, shopId, locationId, page.nodes));
        hasNext = page?.pageInfo.hasNextPage ?? false;
        cursor = page?.pageInfo.endCursor ?? null;
        break;
      }
      case 'orders': {
        const page = await readOrders(api, query, state.after);
        for (const order of page.nodes) if (!await readRestOfLines(api, order, budget) || !await readRestOfFulfilmentLines(api, order, budget)) return result;
        result.read.orders += page.nodes.length;
        await write((tx) => writeOrdersPage(tx, shopId, page.nodes));
        ({ hasNextPage: hasNext, endCursor: cursor } = page.pageInfo);
        break;
      }
    }
    if (hasNext && cursor) state.after = cursor;
    else if (!advance()) {
      Object.assign(result, { finished: true, through: new Date(state.until), state: null });
      return result;
    }
  }
}
