import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.ts';
import { openOrm, type Orm } from '../../src/db/orm.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { entities } from '../../src/modules/entities.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { startLostAnswerRelay, type LostAnswerRelay } from '../helpers/lost-answer-relay.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * Rule (docs/reliability.md, "Safe retries"): a PATCH retried with its Idempotency-Key until it
 * answers 2xx is applied exactly once whatever the database connection did meanwhile — the
 * outcome of a key is what committed (the write and the key's stored answer commit together), not
 * the status code the first attempt answered — and no key still answers 409 once the request
 * deadline has passed after the faults.
 *
 * The faults, through TCP proxies between bomcore and PostgreSQL: a connection cut every 40–80 ms
 * (every connection at once about every second), and the answers of 10 % of the COMMITs and 1 % of
 * the other statements lost after the server ran them — the first attempt committed but answered
 * 503. Each write adds its own delta (write n adds n/1000), so the final levels equal the initial
 * levels plus the sum of the deltas exactly iff every write applied once; the adjustment history
 * names each write by its requested delta. Needs PostgreSQL (the embedded database has no
 * connection to cut).
 */

const WRITES = 1000;
const WRITERS = 12;
const MATERIALS = 6;
const DEADLINE_MS = 1500;
/** A write still refused (409/503) this long after the faults ended counts as stuck. */
const GIVE_UP_MS = DEADLINE_MS + 5000;
/** The faults last at least this long, and until every write has been sent once (at most MAX_FAULT_MS). */
const MIN_FAULT_MS = 5000;
const MAX_FAULT_MS = 30_000;
/** Every this many cuts, every open connection is cut at once. */
const FULL_CUT_EVERY = 16;
const LOST_ANSWERS = { commitRate: 0.1, rate: 0.01 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(usingPostgres)('Idempotency-Key through cut database connections and lost answers (PostgreSQL)', () => {
  const shop = uniqueShopId('idem-fault');
  const run = `${process.pid}-${Date.now()}`;
  let proxy: TcpProxy;
  let relay: LostAnswerRelay;
  let orm: Orm;
  let direct: pg.Client;
  let t: TestApp;
  let key: string;

  const variantOf = (m: number) => `VMAT-VAR-IF${m}`;
  /** The material of the single-fault test (the others are the many writes'). */
  const LONE = variantOf(MATERIALS);
  const materials = Array.from({ length: MATERIALS + 1 }, (_, m) => ({
    variantId: variantOf(m), productId: `VMAT-PROD-IF${m}`, inventoryItemId: `VMAT-INV-IF${m}`, productName: `Idempotency fault material ${m}`,
    variantName: null, sku: `IF-${m}`, vendor: 'Acme', unit: 'pcs', unitCost: 1, unitPrice: 0, levels: [{ locationId: '101', available: 5 }],
  }));
  /** Write n (1-based) adds n/1000 to material n mod MATERIALS at location 101. */
  const writeOf = (n: number) => ({
    variantId: variantOf(n % MATERIALS), key: `fault-${run}-${n}`, body: { updates: [{ locationId: '101', delta: n / 1000 }] },
  });
  const patch = (n: number) => {
    const w = writeOf(n);
    return t.request({
      method: 'PATCH', url: `/api/v1/raw-materials/${w.variantId}/inventory`, key, payload: w.body,
      headers: { 'content-type': 'application/json', 'idempotency-key': w.key },
    });
  };

  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL!);
    relay = await startLostAnswerRelay({ host: target.hostname, port: Number(target.port || 5432) });
    proxy = await startTcpProxy({ host: '127.0.0.1', port: relay.port });
    orm = await openOrm({ databaseUrl: proxy.url(process.env.DATABASE_URL!), dataDir: 'memory://', dbConnectTimeoutMs: 800, dbReadTimeoutMs: 1500 }, entities as never);
    t = await createTestApp({ orm, config: { requestDeadlineMs: DEADLINE_MS } });
    const json = datasetJson(shop);
    (json.materials as unknown[]).push(...materials);
    // The shop and its key are written straight to PostgreSQL, not through the relay and its
    // 1.5 s read timeout: on a loaded machine the load could take longer and fail the setup, which
    // is not what this file tests.
    const setup = await openOrm({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://' }, entities as never);
    try {
      await loadDataset(setup.em, toDataset(json));
      key = (await createApiKey(setup.em.fork(), { shopId: shop, scopes: ['read', 'write'], expiresInMs: null })).key;
    } finally {
      await setup.close();
    }
    direct = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await direct.connect();
  });
  afterAll(async () => {
    await t?.close();
    await orm?.close();
    await proxy?.close();
    await relay?.close();
    await direct?.end();
  });

  it('a COMMIT whose answer is lost: the request answers 503 and keeps the key; the retry replays the committed answer', async () => {
    const body = { updates: [{ locationId: '101', delta: 0.25 }] };
    const send = () => t.request({
      method: 'PATCH', url: `/api/v1/raw-materials/${LONE}/inventory`, key, payload: body,
      headers: { 'content-type': 'application/json', 'idempotency-key': `lone-${run}` },
    });
    const lost = relay.loseAnswerTo(/^commit\b/i);
    const first = await send();
    await lost;
    expect(first.statusCode, first.body).toBe(503);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.json().data.results[0]).toMatchObject({ ok: true, previousAvailable: 5, available: 5.25, appliedDelta: 0.25 });
    const { rows } = await direct.query('select available::text from material_levels where shop_id = $1 and variant_id = $2', [shop, LONE]);
    expect(rows).toEqual([{ available: '5.250000' }]);
  });

  it(`${WRITES} writes retried with their key until 2xx: 0 applied twice, 0 lost, 0 keys answering 409 after the deadline`, async () => {
    const statuses = new Map<number, number>();
    const stuck: number[] = [];
    let cuts = 0;
    let started = 0;
    let faultsEnded: number | null = null;
    let startedDuringFaults = 0;
    const runStarted = Date.now();

    // Cuts every 40–80 ms, and lost answers, until every write has been sent at least once (≥ MIN_FAULT_MS).
    relay.loseAnswers(LOST_ANSWERS);
    const faults = (async () => {
      const begin = Date.now();
      while ((started < WRITES || Date.now() - begin < MIN_FAULT_MS) && Date.now() - begin < MAX_FAULT_MS) {
        await sleep(40 + Math.random() * 40);
        // A connection cut every 40–80 ms; every connection at once about every second.
        if (++cuts % FULL_CUT_EVERY === 0) proxy.cut();
        else relay.cutOne();
      }
      relay.loseAnswers(null);
      faultsEnded = Date.now();
      startedDuringFaults = started;
    })();

    // Each writer retries its refused writes (503 after 10–30 ms, 409 after 100 ms) before it starts a new one.
    const retries: { n: number; due: number }[] = [];
    const writer = async () => {
      for (;;) {
        const due = retries.findIndex((r) => r.due <= Date.now());
        let n: number;
        if (due >= 0) n = retries.splice(due, 1)[0]!.n;
        else if (started < WRITES) n = ++started;
        else if (retries.length > 0) {
          await sleep(5);
          continue;
        } else return;
        const res = await patch(n);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 200) continue;
        expect([409, 503], res.body).toContain(res.statusCode);
        if (faultsEnded !== null && Date.now() - faultsEnded > GIVE_UP_MS) stuck.push(n);
        else retries.push({ n, due: Date.now() + (res.statusCode === 409 ? 100 : 10 + Math.random() * 20) });
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    await faults;
    const timing = { faultMs: faultsEnded! - runStarted, afterFaultsMs: Date.now() - faultsEnded! };

    // Past the deadline of every request of the run, each key answers its stored 2xx: none is still 409.
    await sleep(DEADLINE_MS + 200);
    const again: Record<string, number> = {};
    let resent = 0;
    await Promise.all(Array.from({ length: WRITERS }, async () => {
      for (let n = ++resent; n <= WRITES; n = ++resent) {
        const res = await patch(n);
        const label = `${res.statusCode}${res.headers['idempotency-replayed'] === 'true' ? ' replayed' : ''}`;
        again[label] = (again[label] ?? 0) + 1;
      }
    }));

    const { rows: applications } = await direct.query<{ requested_delta: string; n: string }>(
      `select requested_delta::text, count(*) as n from inventory_adjustments
        where shop_id = $1 and variant_id <> $2 and source = 'api' group by requested_delta`, [shop, LONE]);
    const twice = applications.filter((a) => Number(a.n) > 1).map((a) => a.requested_delta);
    const { rows: levels } = await direct.query<{ variant_id: string; available: string }>(
      `select variant_id, available::text from material_levels where shop_id = $1 and location_id = '101' and variant_id = any($2::text[])`,
      [shop, materials.slice(0, MATERIALS).map((m) => m.variantId)]);
    // Expected level of each material in thousandths: 5 + Σ n/1000 over its writes.
    const expected = new Map(materials.slice(0, MATERIALS).map((m, i) => {
      let thousandths = 5000n;
      for (let n = 1; n <= WRITES; n++) if (n % MATERIALS === i) thousandths += BigInt(n);
      return [m.variantId, `${thousandths / 1000n}.${String(thousandths % 1000n).padStart(3, '0')}000`];
    }));

    const summary = { ...timing, startedDuringFaults, cuts, lostAnswers: relay.lost(), statuses: Object.fromEntries(statuses), stuck: stuck.length, again, appliedTwice: twice.length, applied: applications.length };
    console.info(`idempotency under faults: ${JSON.stringify(summary)}`);
    // The faults hit the writes: many attempts were refused and retried, COMMITs among them.
    expect(statuses.get(503) ?? 0).toBeGreaterThan(100);
    expect(relay.lost().commits).toBeGreaterThan(10);
    expect(twice, 'writes applied twice (their requested deltas)').toEqual([]);
    expect(stuck, 'writes still refused after the deadline').toEqual([]);
    expect(again).toEqual({ '200 replayed': WRITES });
    expect(applications.length, 'writes applied').toBe(WRITES);
    expect(Object.fromEntries(levels.map((l) => [l.variant_id, l.available]))).toEqual(Object.fromEntries(expected));
  }, 120_000);
});
