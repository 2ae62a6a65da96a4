import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/dataset/generate.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import type { Orm } from '../../src/db/orm.ts';

/**
 * Fair sharing, issue 11: CPU-heavy work of one shop never delays another shop's request by more
 * than 100 ms. While the stall query (aliased breakdown batches of 50 orders) and 10 parallel
 * 1000-row BOM pages run for one shop, another shop's `GET /api/v1/locations` is probed every
 * 25 ms; its worst latency and the event loop's worst delay are measured.
 *
 * PostgreSQL only: on embedded PGlite the database itself runs on the event loop. The shop's size
 * follows BOMCORE_FAIR_MATERIALS / BOMCORE_FAIR_BOMS (CI default: 3000 materials, 1000 BOMs; the
 * issue's shop: 20000 / 2000).
 */
const MATERIALS = Number(process.env.BOMCORE_FAIR_MATERIALS ?? 3000);
const BOMS = Number(process.env.BOMCORE_FAIR_BOMS ?? 1000);
/**
 * The bound asserted. The guarantee is 100 ms, measured with this file running alone
 * (`BOMCORE_FAIR_BOUND_MS=100`, as CI does after the suite). Inside `npm test` other test files
 * share the machine's cores, so the default is 500 ms: still far below the 1.6–2.8 s another shop
 * waited before requests took turns, so a regression fails either way.
 */
const BOUND_MS = Number(process.env.BOMCORE_FAIR_BOUND_MS ?? 500);
/** How long the ten looping clients of (c) run (ms). */
const STALL_RUN_MS = Number(process.env.BOMCORE_FAIR_STALL_MS ?? 6000);

const breakdownFields = readFileSync(new URL('../../rest-facade/routes/orders/breakdown-fields.graphql', import.meta.url), 'utf8');
const stallQuery = (aliases: number) =>
  `query Stall($ids: [String!]!) { ${Array.from({ length: aliases }, (_, i) => `a${i}: orderBomBreakdowns(ids: $ids) { notFound items { ...BreakdownFields } }`).join(' ')} } ${breakdownFields}`;

/** 30 aliased batches of 50 orders selecting only `notFound`: cheap-looking, yet 1,500 breakdowns computed. */
const minimalStallQuery = (aliases: number) =>
  `query Stall($ids: [String!]!) { ${Array.from({ length: aliases }, (_, i) => `a${i}: orderBomBreakdowns(ids: $ids) { notFound }`).join(' ')} }`;

interface Probe { worstMs: number; p50Ms: number; p99Ms: number; samples: number; loopMaxMs: number; loopP99Ms: number }

/** The `q` quantile (0–1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Runs `work` while probing `probe()` every 25 ms; the probe's worst latency and the loop's delay. */
async function whileProbing(probe: () => Promise<unknown>, work: () => Promise<unknown>): Promise<Probe> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let running = true;
  const latencies: number[] = [];
  const prober = (async () => {
    while (running) {
      const started = performance.now();
      await probe();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await prober;
    histogram.disable();
  }
  return {
    worstMs: Math.round(Math.max(...latencies)),
    p50Ms: Math.round(quantile(latencies, 0.5)),
    p99Ms: Math.round(quantile(latencies, 0.99)),
    samples: latencies.length,
    loopMaxMs: Math.round(histogram.max / 1e6),
    loopP99Ms: Math.round(histogram.percentile(99) / 1e6),
  };
}

describe.skipIf(!usingPostgres)(`another shop waits ≤ ${BOUND_MS} ms while one shop runs heavy requests (PostgreSQL, ${MATERIALS} materials, ${BOMS} BOMs)`, () => {
  let orm: Orm;
  let t: TestApp;
  let bigKey: string;
  let otherKey: string;
  let orderIds: string[];

  beforeAll(async () => {
    orm = await openTestOrm();
    t = await createTestApp({ orm });
    const big = uniqueShopId('fair-big');
    const dataset = generateDataset({ materials: MATERIALS, boms: BOMS, depth: 4, locations: 10, workOrders: 50, orders: 200, seed: 7, shopId: big });
    orderIds = dataset.platform.orders.slice(0, 50).map((o) => o.orderId);
    await t.load(dataset);
    const other = uniqueShopId('fair-other');
    await t.load(toDataset(datasetJson(other)));
    bigKey = await t.createKey(big, ['read']);
    otherKey = await t.createKey(other, ['read']);
    // Warm-up: compiled queries, connections, the probe's own route and response check.
    for (let i = 0; i < 3; i += 1) await t.request({ method: 'GET', url: '/api/v1/locations', key: otherKey });
    await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=1000', key: bigKey });
    await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?ids=${orderIds.join(',')}`, key: bigKey });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await orm?.close();
  });

  /** The heavy requests go straight to the app: the test's OpenAPI check of a 1 MB body would itself hold the loop. */
  const heavy = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${bigKey}` } });

  const probe = async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key: otherKey });
    expect(res.statusCode).toBe(200);
  };

  it('(a) the stall query (30 aliased batches × 50 orders) is refused before it runs; the other shop is not delayed', async () => {
    let status = 0;
    const measured = await whileProbing(probe, async () => {
      for (let i = 0; i < 20; i += 1) {
        const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${bigKey}` }, payload: { query: stallQuery(30), variables: { ids: orderIds } } });
        status = res.statusCode;
      }
    });
    console.log(`fair (a) stall query: status ${status}; other shop worst ${measured.worstMs} ms over ${measured.samples} probes; event loop max ${measured.loopMaxMs} ms, p99 ${measured.loopP99Ms} ms`);
    expect(status).toBe(400);
    expect(measured.worstMs).toBeLessThanOrEqual(BOUND_MS);
  });

  it('(a′) the largest breakdown batch allowed (50 orders), 10 in parallel: the other shop is not delayed', async () => {
    const measured = await whileProbing(probe, async () => {
      const results = await Promise.all(Array.from({ length: 10 }, () =>
        heavy(`/api/v1/order-bom-breakdown?ids=${orderIds.join(',')}`)));
      expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    });
    console.log(`fair (a') 10 × breakdown of 50 orders: other shop worst ${measured.worstMs} ms over ${measured.samples} probes; event loop max ${measured.loopMaxMs} ms, p99 ${measured.loopP99Ms} ms`);
    expect(measured.worstMs).toBeLessThanOrEqual(BOUND_MS);
  });

  it('(b) 10 parallel GET /bills-of-materials?pageSize=1000: the other shop is not delayed', async () => {
    const measured = await whileProbing(probe, async () => {
      const results = await Promise.all(Array.from({ length: 10 }, () =>
        heavy('/api/v1/bills-of-materials?pageSize=1000')));
      expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    });
    console.log(`fair (b) 10 × BOM page of 1000: other shop worst ${measured.worstMs} ms over ${measured.samples} probes; event loop max ${measured.loopMaxMs} ms, p99 ${measured.loopP99Ms} ms`);
    expect(measured.worstMs).toBeLessThanOrEqual(BOUND_MS);
  });

  // Ten clients saturating the server measure the machine as much as the code: with another test file on
  // the second core the probe got 5 answers in 6 s. (c) runs where the bound is set, alone (CI's own step).
  it.runIf(process.env.BOMCORE_FAIR_BOUND_MS !== undefined)('(c) ten clients looping 30 aliased 50-order batches with a minimal selection: the other shop\'s GET /locations stays within the bound at p99', async () => {
    const clients = 10;
    const statuses = new Map<number, number>();
    // Over a real connection: clients that hang up at the end of the run leave no work behind them.
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`;
    const body = JSON.stringify({ query: minimalStallQuery(30), variables: { ids: orderIds } });
    const stop = new AbortController();
    const client = async () => {
      while (!stop.signal.aborted) {
        try {
          const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${bigKey}`, 'content-type': 'application/json' }, body, signal: stop.signal });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        } catch {
          // Aborted at the end of the run.
        }
      }
    };
    const measured = await whileProbing(probe, async () => {
      const running = Array.from({ length: clients }, client);
      await new Promise((resolve) => setTimeout(resolve, STALL_RUN_MS));
      stop.abort();
      await Promise.all(running);
    });
    const answered = [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
    console.log(`fair (c) ${clients} clients × 30 aliased minimal batches for ${STALL_RUN_MS} ms: ${answered}; other shop p50 ${measured.p50Ms} ms, p99 ${measured.p99Ms} ms, worst ${measured.worstMs} ms over ${measured.samples} probes; event loop max ${measured.loopMaxMs} ms, p99 ${measured.loopP99Ms} ms`);
    expect(measured.samples).toBeGreaterThanOrEqual(50);
    expect(measured.p99Ms).toBeLessThanOrEqual(BOUND_MS);
  }, 120_000);
});
