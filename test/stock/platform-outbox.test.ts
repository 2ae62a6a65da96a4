import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import {
  enqueuePlatformPushes, pendingLevelDeltas, stuckPushesByWorkOrder, type NewPlatformPush,
} from '../../src/modules/stock/platform-push.repository.ts';
import type { ConfirmedPush, PlatformGatewayFactory, PlatformLevelAdjustment, PlatformLevelRow } from '../../src/kernel/platform-port/gateway.ts';
import { sql } from 'kysely';
import { runSql, sqlBuilder } from '../../src/db/typed-sql.ts';
import { LocalPlatformGateway, localPlatformGateway } from '../../src/platform/local-gateway.ts';
import { startOutboxDrainer, type OutboxDrainerOptions } from '../../src/modules/stock/outbox-drainer.ts';
import { shopEm } from '../../src/kernel/shop-context.ts';
import { shopContext } from '../helpers/bom-context.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// The dataset's platform levels: 44001 (soy wax) has 40 at 101 and 3 at 102; 44100 (large candle) 2 at 101.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function newShop(label: string): Promise<string> {
  const shopId = uniqueShopId(label);
  await t.load(toDataset(datasetJson(shopId)));
  return shopId;
}

const deduction = (variantId: string, locationId: string, delta: string, workOrderId: string | null = 'wo_1'): NewPlatformPush => ({
  variantId, locationId, delta, workOrderId, buildRunId: workOrderId ? 'run-1' : null, reason: 'build_run',
});

async function enqueueCommitted(shopId: string, pushes: NewPlatformPush[]): Promise<void> {
  await shopEm(t.orm, shopId).transactional((em) => enqueuePlatformPushes(em, shopId, pushes));
}

/** What the platform itself holds (no outbox view): `variant|location` → available. */
async function platformLevels(shopId: string): Promise<Record<string, string>> {
  const levels = await new LocalPlatformGateway({ shopId, em: shopEm(t.orm, shopId) }).getLevels(['44001', '44100'], null);
  return Object.fromEntries(levels.map((l) => [`${l.variantId}|${l.locationId}`, new Decimal(l.available).toFixed()]));
}

/** Live levels as services read them: through a shop context's platform port. */
async function liveLevels(shopId: string, locationIds: string[] | null = null): Promise<Record<string, string>> {
  const levels = await shopContext(t.orm, shopId).platform.getLevels(['44001', '44100'], locationIds);
  return Object.fromEntries(levels.map((l) => [`${l.variantId}|${l.locationId}`, new Decimal(l.available).toFixed()]));
}

interface PushRow { push_id: string; status: string; attempts: number; last_error: string | null; next_attempt_at: Date; pushed_at: Date | null }

async function pushRows(shopId: string): Promise<PushRow[]> {
  const rows = await t.orm.em.fork().execute<any[]>(
    'select push_id, status, attempts, last_error, next_attempt_at, pushed_at from platform_pushes where shop_id = ? order by push_id', [shopId],
  );
  return rows.map((r) => ({
    ...r, attempts: Number(r.attempts), next_attempt_at: new Date(r.next_attempt_at), pushed_at: r.pushed_at === null ? null : new Date(r.pushed_at),
  }));
}

async function appliedPushIds(shopId: string): Promise<string[]> {
  const rows = await t.orm.em.fork().execute<{ push_id: string }[]>('select push_id from platform_applied_pushes where shop_id = ? order by push_id', [shopId]);
  return rows.map((r) => r.push_id);
}

/**
 * The local platform store behind a switch: `down` makes the factory throw, `failBefore` fails
 * the next applies before anything is written, `failAfter` applies and then loses the answer.
 * Every push id handed to the platform is recorded.
 */
interface PlatformControl { down: boolean; failBefore: number; failAfter: number; handed: string[] }

class ControlledGateway extends LocalPlatformGateway {
  readonly #control: PlatformControl;

  constructor(shop: { shopId: string; em: Em }, control: PlatformControl) {
    super(shop);
    this.#control = control;
  }

  override async applyLevelAdjustments(adjustments: readonly PlatformLevelAdjustment[]): Promise<readonly ConfirmedPush[]> {
    this.#control.handed.push(...adjustments.map((a) => a.pushId));
    if (this.#control.failBefore > 0) {
      this.#control.failBefore -= 1;
      throw new Error(`platform answered 503 Service Unavailable\n${'x'.repeat(2000)}`);
    }
    const confirmed = await super.applyLevelAdjustments(adjustments);
    if (this.#control.failAfter > 0) {
      this.#control.failAfter -= 1;
      throw new Error('socket hang up after the platform applied the batch');
    }
    return confirmed;
  }
}

/**
 * The local platform store behind a switch: `down` makes the factory throw, `failBefore` fails
 * the next applies before anything is written, `failAfter` applies and then loses the answer.
 * Every push id handed to the platform is recorded.
 */
function controllablePlatform(): { control: PlatformControl; factory: PlatformGatewayFactory } {
  const control: PlatformControl = { down: false, failBefore: 0, failAfter: 0, handed: [] };
  const factory: PlatformGatewayFactory = (shop) => {
    if (control.down) throw new Error('platform unreachable');
    return new ControlledGateway(shop, control);
  };
  return { control, factory };
}

function drainerFor(shopIds: string[], extra: Partial<OutboxDrainerOptions> = {}) {
  const warnings: { details: Record<string, unknown>; message: string }[] = [];
  const drainer = startOutboxDrainer({
    orm: t.orm, platform: localPlatformGateway, intervalMs: 0, batchSize: 100, shopIds, retryBaseMs: 0, retryMaxMs: 0,
    logger: { warn: (details, message) => warnings.push({ details, message }) },
    ...extra,
  });
  return { drainer, warnings };
}

describe(`platform push outbox on ${databaseLabel}`, () => {
  it('outbox rows commit with the stock move: a transaction that rolls back leaves nothing pending', async () => {
    const shopId = await newShop('ob-rollback');
    const before = await liveLevels(shopId);
    await expect(shopEm(t.orm, shopId).transactional(async (em: Em) => {
      await enqueuePlatformPushes(em, shopId, [deduction('44001', '101', '-5'), deduction('44100', '101', '-1')]);
      throw new Error('the stock move failed');
    })).rejects.toThrow('the stock move failed');
    expect(await pushRows(shopId)).toEqual([]);
    expect((await pendingLevelDeltas(t.orm.em.fork(), shopId, ['44001', '44100'], null)).size).toBe(0);
    expect(await liveLevels(shopId)).toEqual(before);
    expect(await drainerFor([shopId]).drainer.drainOnce()).toEqual({ pushed: 0, failed: 0 });
  });

  it('reads include pending pushes: a committed deduction leaves the platform level unchanged, but getLevels shows level + pending', async () => {
    const shopId = await newShop('ob-pending');
    await enqueueCommitted(shopId, [
      deduction('44001', '101', '-0.1'), deduction('44001', '101', '-0.1'), deduction('44001', '101', '-0.1'),
      deduction('44001', '102', '-3'),
      { ...deduction('44100', '103', '2'), reason: 'build_run_reversal' },
    ]);
    const rows = await pushRows(shopId);
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => /^push_[0-9a-f-]{36}$/.test(r.push_id) && r.status === 'pending' && r.attempts === 0)).toBe(true);

    expect(await platformLevels(shopId)).toEqual({ '44001|101': '40', '44001|102': '3', '44100|101': '2' });
    // Exact arithmetic (3 × 0.1 = 0.3); a pending push on a level the platform does not list yet starts at 0.
    expect(await liveLevels(shopId)).toEqual({ '44001|101': '39.7', '44001|102': '0', '44100|101': '2', '44100|103': '2' });
    expect(await liveLevels(shopId, ['101'])).toEqual({ '44001|101': '39.7', '44100|101': '2' });
    expect(await liveLevels(shopId, ['103'])).toEqual({ '44100|103': '2' });
    expect(await pendingLevelDeltas(t.orm.em.fork(), shopId, ['44001'], ['101', '102'])).toEqual(new Map([['44001|101', '-0.3'], ['44001|102', '-3']]));
  });

  it('the live levels a statement embeds (the port\'s levelsSql) are those of getLevels: platform level + pending pushes, exact, an unlisted level included, at given locations or every one', async () => {
    const shopId = await newShop('ob-embedded');
    await enqueueCommitted(shopId, [
      deduction('44001', '101', '-0.1'), deduction('44001', '101', '-0.1'), deduction('44001', '101', '-0.1'),
      deduction('44001', '102', '-3'),
      { ...deduction('44100', '103', '2'), reason: 'build_run_reversal' },
    ]);
    const port = shopContext(t.orm, shopId).platform;
    for (const locations of [['101'], ['101', '102', '103'], ['103'], ['104'], null]) {
      const embedded = port.levelsSql?.(['44001', '44100'], locations);
      if (!embedded) throw new Error('the local store\'s live levels are in the database: levelsSql answers a select');
      const rows = await runSql(t.orm.em.fork(), sqlBuilder<{ l: PlatformLevelRow }>().selectFrom(sql<PlatformLevelRow>`${embedded}`.as('l')).select(['l.variant_id', 'l.location_id', 'l.available']));
      const read = Object.fromEntries(rows.map((r) => [`${r.variant_id}|${r.location_id}`, new Decimal(r.available).toFixed()]));
      expect(read, locations?.join(',') ?? 'every location').toEqual(await liveLevels(shopId, locations));
    }
    expect(Object.keys(await liveLevels(shopId, ['101', '102', '103']))).toHaveLength(4);
  });

  it('retried until it succeeds: a failing platform keeps pushes pending with attempts, the last error and a backoff, and they are reported stuck', async () => {
    const shopId = await newShop('ob-retry');
    await enqueueCommitted(shopId, [deduction('44001', '101', '-4', 'wo_1'), deduction('44001', '102', '-1.5', 'wo_1'), deduction('44100', '101', '-1', 'wo_2')]);
    const { control, factory } = controllablePlatform();
    const { drainer, warnings } = drainerFor([shopId], { platform: factory, retryBaseMs: 300, retryMaxMs: 450 });

    // Not yet attempted: nothing is stuck.
    expect((await stuckPushesByWorkOrder(t.orm.em.fork(), shopId, ['wo_1', 'wo_2'])).size).toBe(0);

    control.failBefore = 1;
    const started = Date.now();
    expect(await drainer.drainOnce()).toEqual({ pushed: 0, failed: 3 });
    const ended = Date.now();
    // Not due during the backoff: a pass claims nothing.
    expect(await drainer.drainOnce()).toEqual({ pushed: 0, failed: 0 });
    let rows = await pushRows(shopId);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['pending', 1], ['pending', 1], ['pending', 1]]);
    for (const r of rows) {
      // The message only: one line, bounded to 500 characters, no stack.
      expect(r.last_error).toMatch(/^platform answered 503 Service Unavailable x+$/);
      expect(r.last_error).toHaveLength(500);
      // First retry after retryBaseMs (300 ms).
      expect(r.next_attempt_at.getTime()).toBeGreaterThanOrEqual(started + 300 - 5);
      expect(r.next_attempt_at.getTime()).toBeLessThanOrEqual(ended + 300 + 5);
    }
    // One warning for the batch, not one per push; no stack.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.details).toMatchObject({ failed: 3, pushed: 0 });
    expect(JSON.stringify(warnings[0])).not.toMatch(/ControlledGateway|platform-outbox\.test/);

    expect(await platformLevels(shopId)).toEqual({ '44001|101': '40', '44001|102': '3', '44100|101': '2' });
    expect(await liveLevels(shopId)).toEqual({ '44001|101': '36', '44001|102': '1.5', '44100|101': '1' });
    const stuck = await stuckPushesByWorkOrder(t.orm.em.fork(), shopId, ['wo_1', 'wo_2', 'wo_none']);
    expect([...stuck.keys()].sort()).toEqual(['wo_1', 'wo_2']);
    expect(stuck.get('wo_1')).toMatchObject({ count: 2, quantity: '5.5', lastError: rows[0]!.last_error });
    expect(stuck.get('wo_1')!.oldestAt).toBeInstanceOf(Date);
    expect(stuck.get('wo_2')).toMatchObject({ count: 1, quantity: '1' });

    // The factory itself throwing (platform unreachable) counts as a failed attempt too; the delay doubles, capped at 450 ms.
    await new Promise((resolve) => setTimeout(resolve, 320));
    control.down = true;
    const secondStart = Date.now();
    expect(await drainer.drainOnce()).toEqual({ pushed: 0, failed: 3 });
    const secondEnd = Date.now();
    rows = await pushRows(shopId);
    expect(rows.map((r) => [r.status, r.attempts, r.last_error])).toEqual(rows.map(() => ['pending', 2, 'platform unreachable']));
    for (const r of rows) {
      expect(r.next_attempt_at.getTime()).toBeGreaterThanOrEqual(secondStart + 450 - 5);
      expect(r.next_attempt_at.getTime()).toBeLessThanOrEqual(secondEnd + 450 + 5);
    }

    // The platform recovers: every push is applied once, the levels move by exactly the sum.
    await new Promise((resolve) => setTimeout(resolve, 470));
    control.down = false;
    expect(await drainer.drainOnce()).toEqual({ pushed: 3, failed: 0 });
    rows = await pushRows(shopId);
    expect(rows.map((r) => [r.status, r.attempts, r.last_error])).toEqual(rows.map(() => ['pushed', 3, null]));
    expect(rows.every((r) => r.pushed_at instanceof Date)).toBe(true);
    expect(await platformLevels(shopId)).toEqual({ '44001|101': '36', '44001|102': '1.5', '44100|101': '1' });
    expect(await appliedPushIds(shopId)).toEqual(rows.map((r) => r.push_id));
    // Pushed, no longer pending: reads show the platform's level, not level + delta again.
    expect(await liveLevels(shopId)).toEqual({ '44001|101': '36', '44001|102': '1.5', '44100|101': '1' });
    expect((await stuckPushesByWorkOrder(t.orm.em.fork(), shopId, ['wo_1', 'wo_2'])).size).toBe(0);
    // A second drain after marking finds nothing to push.
    expect(await drainer.drainOnce()).toEqual({ pushed: 0, failed: 0 });
    expect(await platformLevels(shopId)).toEqual({ '44001|101': '36', '44001|102': '1.5', '44100|101': '1' });
  });

  it('applied exactly once: a push whose acknowledgement was lost is pushed again and skipped by the platform', async () => {
    const shopId = await newShop('ob-lost-ack');
    await enqueueCommitted(shopId, [deduction('44001', '101', '-7'), deduction('44001', '101', '-0.25')]);
    const { control, factory } = controllablePlatform();
    const { drainer } = drainerFor([shopId], { platform: factory });
    control.failAfter = 1;
    expect(await drainer.drainOnce()).toEqual({ pushed: 0, failed: 2 });
    expect(await platformLevels(shopId)).toMatchObject({ '44001|101': '32.75' });
    expect((await pushRows(shopId)).map((r) => r.status)).toEqual(['pending', 'pending']);

    expect(await drainer.drainOnce()).toEqual({ pushed: 2, failed: 0 });
    expect(control.handed).toHaveLength(4); // each push handed over twice…
    expect(await platformLevels(shopId)).toMatchObject({ '44001|101': '32.75' }); // …and applied once
    expect(await appliedPushIds(shopId)).toHaveLength(2);
    expect(await liveLevels(shopId)).toMatchObject({ '44001|101': '32.75' });
  });

  it('applied exactly once: the platform gateway skips push ids it already applied, also when the same batch arrives twice at once', async () => {
    const shopId = await newShop('ob-idem');
    const gateway = () => new LocalPlatformGateway({ shopId, em: shopEm(t.orm, shopId) });
    const batch = [
      { pushId: 'push_a', variantId: '44001', locationId: '101', delta: '-1.5' },
      { pushId: 'push_b', variantId: '44001', locationId: '101', delta: '-0.5' },
      { pushId: 'push_c', variantId: '44100', locationId: '103', delta: '-2' },
    ];
    await Promise.all([gateway().applyLevelAdjustments(batch), gateway().applyLevelAdjustments(batch)]);
    await gateway().applyLevelAdjustments([...batch, batch[0]!]);
    // 40 − 2; a missing level starts at 0 and may go negative (the caller clamped).
    expect(await platformLevels(shopId)).toEqual({ '44001|101': '38', '44001|102': '3', '44100|101': '2', '44100|103': '-2' });
    expect(await appliedPushIds(shopId)).toEqual(['push_a', 'push_b', 'push_c']);
  });

  it('two drainers at once never push a push twice: disjoint claims, each push handed to the platform once', async () => {
    const shopId = await newShop('ob-parallel');
    const pushes = Array.from({ length: 40 }, (_, i) => deduction('44001', i % 2 === 0 ? '101' : '102', i % 2 === 0 ? '-0.5' : '-0.05', `wo_${i % 4}`));
    await enqueueCommitted(shopId, pushes);
    const { control, factory } = controllablePlatform();
    const first = drainerFor([shopId], { platform: factory, batchSize: 7 }).drainer;
    const second = drainerFor([shopId], { platform: factory, batchSize: 7 }).drainer;
    let pushed = 0;
    for (let round = 0; round < 10; round += 1) {
      const results = await Promise.all([first.drainOnce(), second.drainOnce(), first.drainOnce(), second.drainOnce()]);
      pushed += results.reduce((sum, r) => sum + r.pushed, 0);
      expect(results.every((r) => r.failed === 0)).toBe(true);
    }
    expect(pushed).toBe(40);
    expect(control.handed).toHaveLength(40);
    expect(new Set(control.handed).size).toBe(40);
    // 40 − 20 × 0.5 = 30; 3 − 20 × 0.05 = 2.
    expect(await platformLevels(shopId)).toEqual({ '44001|101': '30', '44001|102': '2', '44100|101': '2' });
    expect(await appliedPushIds(shopId)).toHaveLength(40);
    expect(await Promise.all([first.drainOnce(), second.drainOnce()])).toEqual([{ pushed: 0, failed: 0 }, { pushed: 0, failed: 0 }]);
    await Promise.all([first.stop(), second.stop()]);
  });

  it("tenant isolation: another shop's pushes never affect a shop's reads, stuck reports or drains", async () => {
    const shopId = await newShop('ob-mine');
    const otherId = await newShop('ob-other');
    await enqueueCommitted(otherId, [deduction('44001', '101', '-10', 'wo_1'), deduction('44100', '103', '5', 'wo_1')]);
    const { control, factory } = controllablePlatform();
    control.failBefore = 1;
    await drainerFor([otherId], { platform: factory }).drainer.drainOnce();

    expect(await liveLevels(shopId)).toEqual({ '44001|101': '40', '44001|102': '3', '44100|101': '2' });
    expect((await pendingLevelDeltas(t.orm.em.fork(), shopId, ['44001', '44100'], null)).size).toBe(0);
    expect((await stuckPushesByWorkOrder(t.orm.em.fork(), shopId, ['wo_1'])).size).toBe(0);
    expect(await liveLevels(otherId)).toEqual({ '44001|101': '30', '44001|102': '3', '44100|101': '2', '44100|103': '5' });

    // A drainer of this shop leaves the other shop's pushes alone; the other shop's drain moves only its own levels.
    expect(await drainerFor([shopId]).drainer.drainOnce()).toEqual({ pushed: 0, failed: 0 });
    expect((await pushRows(otherId)).map((r) => r.status)).toEqual(['pending', 'pending']);
    expect(await drainerFor([otherId]).drainer.drainOnce()).toEqual({ pushed: 2, failed: 0 });
    expect(await platformLevels(shopId)).toEqual({ '44001|101': '40', '44001|102': '3', '44100|101': '2' });
    expect(await platformLevels(otherId)).toEqual({ '44001|101': '30', '44001|102': '3', '44100|101': '2', '44100|103': '5' });
  });

  it("a dataset reload clears the shop's outbox and applied-push records", async () => {
    const shopId = await newShop('ob-reload');
    await enqueueCommitted(shopId, [deduction('44001', '101', '-1'), deduction('44001', '102', '-1')]);
    await drainerFor([shopId], { batchSize: 1 }).drainer.drainOnce();
    expect((await pushRows(shopId)).map((r) => r.status).sort()).toEqual(['pending', 'pushed']);
    await t.load(toDataset(datasetJson(shopId)));
    expect(await pushRows(shopId)).toEqual([]);
    expect(await appliedPushIds(shopId)).toEqual([]);
    expect(await liveLevels(shopId)).toEqual({ '44001|101': '40', '44001|102': '3', '44100|101': '2' });
  });

  it('the background drainer pushes on its interval and stops cleanly, waiting for the pass in flight', async () => {
    const shopId = await newShop('ob-timer');
    const { drainer } = drainerFor([shopId], { intervalMs: 20 });
    await enqueueCommitted(shopId, [deduction('44001', '101', '-2')]);
    const deadline = Date.now() + 10_000;
    while ((await pushRows(shopId))[0]!.status !== 'pushed') {
      if (Date.now() > deadline) throw new Error('the background drainer did not push');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await drainer.stop();
    expect(await platformLevels(shopId)).toMatchObject({ '44001|101': '38' });
    await enqueueCommitted(shopId, [deduction('44001', '101', '-2')]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await pushRows(shopId)).map((r) => r.status).sort()).toEqual(['pending', 'pushed']);
    expect(await drainer.drainOnce()).toEqual({ pushed: 0, failed: 0 });
  });
});
