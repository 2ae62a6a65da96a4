import { sql, type Expression } from 'kysely';
import type { Em } from '../db/orm.ts';
import { runSql, runSqlWrite } from '../db/typed-sql.ts';
import { textArrayLiteral } from '../db/sql-arrays.ts';
import { exact } from '../kernel/numbers/index.ts';
import { platformStoreSql } from './tables.ts';
import { PlatformLocation, PlatformOrderMetafield, PlatformVariant } from './local-store.entity.ts';
import type {
  ConfirmedPush, OrderMetafieldInfo, PlatformGateway, PlatformGatewayFactory, PlatformLevelAdjustment, PlatformLevelInfo, PlatformLevelRow, PlatformLevelSetOutcome, PlatformLevelSetRequest, PlatformLocationInfo, PlatformOrderInfo, PlatformVariantInfo,
} from '../kernel/platform-port/gateway.ts';

/** Adjustments per statement: 4 bind parameters each, under PostgreSQL's 65,535. */
const ADJUSTMENTS_PER_STATEMENT = 10_000;

/** Serves the platform port from the local platform store (the `platform` part of a dataset). */
export class LocalPlatformGateway implements PlatformGateway {
  readonly #em: Em;
  readonly #shopId: string;

  constructor(shop: { shopId: string; em: Em }) {
    this.#em = shop.em;
    this.#shopId = shop.shopId;
  }

  async listLocations(): Promise<PlatformLocationInfo[]> {
    const rows = await this.#em.find(PlatformLocation, {}, { orderBy: { name: 'asc', locationId: 'asc' } });
    return rows.map((r) => ({ locationId: r.locationId, name: r.name }));
  }

  async getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]> {
    if (variantIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
    // Plain rows: a buildable read asks for hundreds of variants × dozens of locations, and
    // hydrating an entity per level cost more than the query itself. One array parameter per list,
    // not one parameter per id: planning asks for every material of the shop (60,000 platform ids
    // at the bench's 100k shop, near PostgreSQL's 65,535 parameters; 85 ms of planning time alone).
    // The rows come back in the answer's shape (aliased): planning asks for every level of the shop
    // (133,000 at the bench's 100k shop), and a copy of each was one more object held per level.
    let query = platformStoreSql.selectFrom('platform_levels').select(['variant_id as variantId', 'location_id as locationId', 'available'])
      .where('shop_id', '=', this.#shopId).where('variant_id', '=', sql<string>`any(${textArrayLiteral([...new Set(variantIds)])}::text[])`);
    if (locationIds) query = query.where('location_id', '=', sql<string>`any(${textArrayLiteral([...new Set(locationIds)])}::text[])`);
    return runSql(this.#em, query.orderBy('variant_id').orderBy('location_id'));
  }

  /**
   * The store's levels of the variants at the locations (null: every location), as a select to embed
   * (lists not empty). Each variant is an index probe (a lateral subquery fenced with `offset 0`): with
   * a list of constants the planner may scan the whole table instead, ~20× slower for a recipe's
   * hundreds of materials in a shop of 20,000.
   */
  levelsSql(variantIds: readonly string[], locationIds: readonly string[] | null): Expression<PlatformLevelRow> {
    return platformStoreSql.selectFrom(sql<{ id: string }>`(select unnest(${textArrayLiteral([...new Set(variantIds)])}::text[]) as id)`.as('i'))
      .innerJoinLateral((eb) => {
        const levels = eb.selectFrom('platform_levels as l').select(['l.variant_id', 'l.location_id', 'l.available'])
          .where('l.shop_id', '=', this.#shopId).whereRef('l.variant_id', '=', sql.ref('i.id'));
        return (locationIds ? levels.where('l.location_id', '=', sql<string>`any(${textArrayLiteral([...new Set(locationIds)])}::text[])`) : levels)
          .modifyEnd(sql`offset 0`).as('l');
      }, (j) => j.onTrue())
      .select(['l.variant_id', 'l.location_id', 'l.available']);
  }

  /** A store variant as getVariants maps it, as a JSON object (decimals as their column's text), probed by primary key. */
  variantJson(shopId: Expression<string>, variantId: Expression<string>): Expression<PlatformVariantInfo | null> {
    return platformStoreSql.selectFrom('platform_variants as v')
      .select(sql<PlatformVariantInfo>`json_build_object('variantId', v.variant_id, 'productId', v.product_id, 'inventoryItemId', v.inventory_item_id,
        'productName', v.product_name, 'variantName', v.variant_name, 'sku', v.sku, 'vendor', v.vendor, 'price', v.price::text,
        'cost', v.cost::text, 'imageUrl', v.image_url)`.as('variant'))
      .where('v.shop_id', '=', shopId).where('v.variant_id', '=', variantId).$asScalar();
  }

  async getVariants(variantIds: readonly string[]): Promise<PlatformVariantInfo[]> {
    if (variantIds.length === 0) return [];
    const rows = await this.#em.find(PlatformVariant, { variantId: { $in: [...new Set(variantIds)] } }, { orderBy: { variantId: 'asc' } });
    return rows.map((v) => ({
      variantId: v.variantId, productId: v.productId, inventoryItemId: v.inventoryItemId, productName: v.productName,
      variantName: v.variantName ?? null, sku: v.sku ?? null, vendor: v.vendor ?? null, price: v.price ?? null, cost: v.cost ?? null,
      imageUrl: v.imageUrl ?? null,
    }));
  }

  async getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]> {
    if (orderIds !== null && orderIds.length === 0) return [];
    // One round trip: orders left-joined with their lines, in order and line position. Named ids
    // are any order held, history included; all of them are the open ones.
    let query = platformStoreSql.selectFrom('platform_orders as o')
      .leftJoin('platform_order_lines as l', (join) => join.onRef('l.shop_id', '=', 'o.shop_id').onRef('l.order_id', '=', 'o.order_id'))
      .select(['o.order_id', 'o.name', 'o.note', 'l.position', 'l.variant_id', 'l.product_id', 'l.sku', 'l.title', 'l.quantity'])
      .where('o.shop_id', '=', this.#shopId);
    query = orderIds ? query.where('o.order_id', 'in', [...new Set(orderIds)]) : query.where('o.open', '=', true);
    const rows = await runSql(this.#em, query.orderBy('o.order_id').orderBy('l.position'));
    const orders = new Map<string, PlatformOrderInfo>();
    for (const r of rows) {
      let order = orders.get(r.order_id);
      if (!order) orders.set(r.order_id, (order = { orderId: r.order_id, name: r.name, note: r.note ?? null, lineItems: [] }));
      if (r.position !== null) {
        order.lineItems.push({ variantId: r.variant_id, productId: r.product_id, sku: r.sku, title: r.title ?? '', quantity: r.quantity ?? '0' });
      }
    }
    return [...orders.values()];
  }

  async writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void> {
    if (entries.length === 0) return;
    const now = new Date();
    await this.#em.upsertMany(PlatformOrderMetafield, entries.map((e) => ({
      shopId: this.#shopId, orderId: e.orderId, namespace: e.namespace, key: e.key, value: e.value, updatedAt: now,
    })));
  }

  async readOrderMetafields(orderIds: readonly string[], namespace: string, key: string): Promise<OrderMetafieldInfo[]> {
    if (orderIds.length === 0) return [];
    const rows = await this.#em.find(PlatformOrderMetafield, { orderId: { $in: [...orderIds] }, namespace, key }, { orderBy: { orderId: 'asc' } });
    return rows.map((r) => ({ orderId: r.orderId, namespace: r.namespace, key: r.key, value: r.value, updatedAt: r.updatedAt }));
  }

  /** The local store is the platform: its levels are set by compare-and-set (setLocalLevels). */
  setLevels(request: PlatformLevelSetRequest): Promise<PlatformLevelSetOutcome> {
    return setLocalLevels(this.#em, this.#shopId, request);
  }

  /** The local store is the platform: its levels are the platform's. */
  refreshLevels(variantIds: readonly string[], locationIds: readonly string[]): Promise<PlatformLevelInfo[]> {
    return this.getLevels(variantIds, locationIds);
  }

  /**
   * Records the push ids in `platform_applied_pushes` (`on conflict do nothing returning`) and adds
   * the deltas of only the newly recorded ones to `platform_levels` (a missing level starts at 0),
   * in one statement per 10,000 adjustments, all in one transaction: a push already applied, by
   * an earlier call or a concurrent one, is skipped. Exact numeric arithmetic in SQL.
   */
  async applyLevelAdjustments(adjustments: readonly PlatformLevelAdjustment[]): Promise<readonly ConfirmedPush[]> {
    const unique = new Map<string, PlatformLevelAdjustment>();
    for (const a of adjustments) if (!unique.has(a.pushId)) unique.set(a.pushId, a);
    if (unique.size === 0) return [];
    const all = [...unique.values()];
    await this.#em.transactional(async (em) => {
      for (let start = 0; start < all.length; start += ADJUSTMENTS_PER_STATEMENT) {
        const chunk = all.slice(start, start + ADJUSTMENTS_PER_STATEMENT);
        const input = sql<{ push_id: string; variant_id: string; location_id: string; delta: string }>`(values ${sql.join(chunk.map((a) =>
          sql`(${a.pushId}::text, ${a.variantId}::text, ${a.locationId}::text, ${a.delta}::numeric)`))})`;
        await runSqlWrite(em, platformStoreSql
          .with('input(push_id, variant_id, location_id, delta)', () => input)
          .with('applied', (db) => db.insertInto('platform_applied_pushes')
            .columns(['shop_id', 'push_id', 'applied_at'])
            .expression(db.selectFrom('input').select((eb) => [eb.val(this.#shopId).as('shop_id'), 'push_id', sql<Date>`now()`.as('applied_at')]))
            .onConflict((oc) => oc.columns(['shop_id', 'push_id']).doNothing())
            .returning('push_id'))
          .with('moves', (db) => db.selectFrom('input as i').innerJoin('applied as a', 'a.push_id', 'i.push_id')
            .select((eb) => ['i.variant_id', 'i.location_id', eb.fn.sum<string>('i.delta').as('delta')])
            .groupBy(['i.variant_id', 'i.location_id']))
          .insertInto('platform_levels')
          .columns(['shop_id', 'variant_id', 'location_id', 'available'])
          .expression((db) => db.selectFrom('moves').select((eb) => [eb.val(this.#shopId).as('shop_id'), 'variant_id', 'location_id', 'delta']))
          .onConflict((oc) => oc.columns(['shop_id', 'variant_id', 'location_id'])
            .doUpdateSet((eb) => ({ available: sql<string>`${eb.ref('platform_levels.available')} + ${eb.ref('excluded.available')}` }))));
      }
    });
    // Each level moved by exactly its pushes' deltas: nothing to report.
    return [];
  }
}

/**
 * Sets levels of the local store by compare-and-set, all or none, in one transaction: the levels are
 * locked, each compared exactly with its `changeFromQuantity` (a level the store does not hold is
 * never set: the variant is not stocked there), then written. Two statements.
 */
export async function setLocalLevels(em: Em, shopId: string, request: PlatformLevelSetRequest): Promise<PlatformLevelSetOutcome> {
  if (request.sets.length === 0) return { status: 'set' };
  return em.transactional(async (tx) => {
    const held = await runSql(tx as Em, platformStoreSql.selectFrom('platform_levels').select(['variant_id', 'location_id', 'available'])
      .where('shop_id', '=', shopId).where('variant_id', 'in', [...new Set(request.sets.map((s) => s.variantId))])
      .where('location_id', 'in', [...new Set(request.sets.map((s) => s.locationId))])
      .orderBy('variant_id').orderBy('location_id').forUpdate());
    const level = new Map(held.map((r) => [`${r.variant_id}|${r.location_id}`, exact(r.available)]));
    const stale = request.sets.some((s) => {
      const now = level.get(`${s.variantId}|${s.locationId}`);
      return now === undefined || !now.eq(exact(s.changeFromQuantity));
    });
    if (stale) return { status: 'stale' as const };
    const input = sql<{ variant_id: string; location_id: string; quantity: string }>`(values ${sql.join(request.sets.map((s) =>
      sql`(${s.variantId}::text, ${s.locationId}::text, ${s.quantity}::numeric)`))})`;
    await runSqlWrite(tx as Em, platformStoreSql.with('input(variant_id, location_id, quantity)', () => input)
      .updateTable('platform_levels as l').from('input as i').set((eb) => ({ available: eb.ref('i.quantity') }))
      .where('l.shop_id', '=', shopId).whereRef('l.variant_id', '=', 'i.variant_id').whereRef('l.location_id', '=', 'i.location_id'));
    return { status: 'set' as const };
  });
}

/** The local platform store as the adapter of each shop (the default of the app, the CLI and the outbox drainer). */
export const localPlatformGateway: PlatformGatewayFactory = (shop) => new LocalPlatformGateway(shop);
