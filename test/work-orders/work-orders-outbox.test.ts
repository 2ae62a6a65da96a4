import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformGatewayFactory } from '../../src/kernel/platform-port/gateway.ts';
import { LocalPlatformGateway, localPlatformGateway } from '../../src/platform/local-gateway.ts';
import { startOutboxDrainer } from '../../src/modules/stock/outbox-drainer.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { liveLevel, stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

/** A platform that is down: every push fails. */
class UnreachablePlatform extends LocalPlatformGateway {
  override async applyLevelAdjustments(): Promise<never> {
    throw new Error('platform unreachable (503)');
  }
}

let t: TestApp;
let key: string;
const shop = uniqueShopId('wo-outbox');
const quiet = { warn: () => undefined };
const drainer = (platform: PlatformGatewayFactory = localPlatformGateway) =>
  startOutboxDrainer({ orm: t.orm, platform, intervalMs: 0, batchSize: 50, logger: quiet, shopIds: [shop], retryBaseMs: 1, retryMaxMs: 1 });

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [workOrder('wo_push', 'in_progress')])));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const read = async () => (await t.get('/api/v1/work-orders/wo_push', key)).body.data;

describe('platform-linked deductions through the outbox', () => {
  it('a failing gateway leaves pushes pending (reads include them, a warning shows it); on recovery each drains exactly once', async () => {
    const before = await stockSnapshot(t.orm, shop);
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_push/build-runs', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: (await read()).updatedAt, buildRunId: 'push-1', items: [{ itemId: 'woi_1', quantity: 10 }] } });
    expect(res.statusCode).toBe(200);
    // 10 candles × 0.42 kg = 4.2 kg of platform wax: 4 whole units leave, pushed through the outbox.
    const queued = await stockSnapshot(t.orm, shop);
    expect(queued['pending|44001|101']).toBe('-4');
    expect(queued['platform|44001|101']).toBe(before['platform|44001|101']);
    expect((await t.get('/api/v1/raw-materials/44001/inventory?locationIds=101', key)).body.data.totalAvailable).toBe(liveLevel(before, '44001', '101') - 4);

    const down = drainer((s) => new UnreachablePlatform(s));
    expect(await down.drainOnce()).toEqual({ pushed: 0, failed: 1 });
    await down.stop();
    expect((await stockSnapshot(t.orm, shop))['platform|44001|101']).toBe(before['platform|44001|101']);
    const stuck = (await read()).warnings.find((w: { code: string }) => w.code === 'PLATFORM_PUSH_STUCK');
    expect(stuck).toMatchObject({ count: 1, quantity: 4, message: expect.stringContaining('platform unreachable'), remedy: expect.any(String) });

    await new Promise((resolve) => setTimeout(resolve, 5));
    const up = drainer();
    expect(await up.drainOnce()).toEqual({ pushed: 1, failed: 0 });
    expect(await up.drainOnce()).toEqual({ pushed: 0, failed: 0 });
    await up.stop();
    const drained = await stockSnapshot(t.orm, shop);
    expect(drained['pending|44001|101']).toBeUndefined();
    expect(Number(drained['platform|44001|101'])).toBe(Number(before['platform|44001|101']) - 4);
    expect((await read()).warnings.map((w: { code: string }) => w.code)).not.toContain('PLATFORM_PUSH_STUCK');
    const applied = await t.orm.em.fork().execute<any[]>('select count(*)::int as n from platform_applied_pushes where shop_id = ?', [shop]);
    expect(applied[0].n).toBe(1);
  });

  it('reversing the run pushes the units back (exactly as if it had never started, once drained)', async () => {
    const before = await stockSnapshot(t.orm, shop);
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_push/build-runs', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: (await read()).updatedAt, buildRunId: 'push-2', items: [{ itemId: 'woi_1', quantity: 5 }] } });
    expect(res.statusCode).toBe(200);
    const reversed = await t.app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { query: 'mutation($t: DateTime!) { reverseBuildRun(workOrderId: "wo_push", buildRunId: "push-2", expectedUpdatedAt: $t) { buildRun { status } userErrors { code } } }', variables: { t: (await read()).updatedAt } } });
    expect(reversed.json().data.reverseBuildRun.buildRun.status).toBe('reversed');
    const up = drainer();
    await up.drainOnce();
    await up.stop();
    expect(await stockSnapshot(t.orm, shop)).toEqual(before);
  });
});
