import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { acknowledgedSocket, rawSocket, type RawSocket } from '../helpers/live-sockets.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Issue 34 item 2: one shop's subscriptions cannot take another shop's latency. Shop A's read key
// holds as many connections and subscriptions as the limits allow (20 × 20, each of 30 aliases, the
// most a document may have) while A's stock moves; another shop's `GET /api/v1/locations` is timed
// beside it. Every event sent spends a token of A's key, so once its bucket (the defaults: 40,
// refilled at 4 a second) is empty, A's subscriptions wait their turn instead of taking the CPU.
//
// The guarantee is REST's 100 ms p99 (`BOMCORE_FAIR_BOUND_MS=100`, this file alone on an idle
// machine). With other test files or other work on the machine the default bound is 500 ms, as the
// other fairness tests have it: the probe found 2.95 s p50 and 6.96 s p99 before the limits.
// Measured alone on a 2-core machine shared with other work (load average 9-12): p50 9-11 ms, p99
// 140-190 ms (one outlier in about 85 probes) on PGlite and PostgreSQL; at load average 4, p50 4.7 ms,
// p99 24.5 ms (worst 99.8 ms over 105 probes) on PostgreSQL. 44-49 events sent in 6 s.

const BOUND_MS = Number(process.env.BOMCORE_FAIR_BOUND_MS ?? 500);
const CONNECTIONS = 20;
const SUBSCRIPTIONS = 20;

let t: TestApp;
let url: string;
const busy = uniqueShopId('live-busy');
const quiet = uniqueShopId('live-quiet');
let writer: string;
let reader: string;
let probers: string[];
const sockets: RawSocket[] = [];

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

beforeAll(async () => {
  // The defaults for the rate limit (the test app otherwise lifts it) and the live limits.
  t = await createTestApp({ orm: await openTestOrm(), config: { rateLimitBurst: 40, rateLimitRefillPerSecond: 4 } });
  await t.load(toDataset(datasetJson(busy)));
  await t.load(toDataset(datasetJson(quiet)));
  writer = await t.createKey(busy, ['read', 'write']);
  reader = await t.createKey(busy, ['read']);
  probers = await Promise.all([1, 2, 3, 4].map(() => t.createKey(quiet, ['read'])));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  for (const socket of sockets) socket.socket.close();
  await t.close();
  await t.orm.close();
});

describe(`another shop's latency beside a shop's subscriptions at their limits (${databaseLabel})`, () => {
  it(`${CONNECTIONS} connections × ${SUBSCRIPTIONS} subscriptions × 30 aliases of one key while its stock moves: the other shop's GET /locations p99 ≤ ${BOUND_MS} ms, and the key's budget paces the events`, async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: delta`).join(' ');
    const query = `subscription { stockLevelChanged { ${aliases} event { sequence } } }`;
    for (let c = 0; c < CONNECTIONS; c += 1) {
      const socket = await acknowledgedSocket(url, `Bearer ${reader}`);
      for (let s = 0; s < SUBSCRIPTIONS; s += 1) socket.send({ type: 'subscribe', id: `s${s}`, payload: { query } });
      sockets.push(socket);
    }
    // One more connection of the key is refused: the limit holds.
    const extra = await rawSocket(url);
    extra.send({ type: 'connection_init', payload: { authorization: `Bearer ${reader}` } });
    expect((await extra.closed).code).toBe(4429);
    await new Promise((resolve) => setTimeout(resolve, 500));

    let moving = true;
    const mover = (async () => {
      for (let i = 0; i < 20 && moving; i += 1) {
        await t.graphql(writer, 'mutation($u: [RawMaterialInventoryUpdateInput!]!) { adjustRawMaterialInventory(variantId: "VMAT-VAR-0001", updates: $u) { userErrors { code } } }',
          { u: [{ locationId: '101', delta: '1' }] });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const latencies: number[] = [];
    const until = performance.now() + 6_000;
    while (performance.now() < until) {
      const started = performance.now();
      const res = await t.request({ method: 'GET', url: '/api/v1/locations', key: probers[latencies.length % probers.length] });
      latencies.push(performance.now() - started);
      expect(res.statusCode).toBe(200);
      // Four keys in turn, each within its own budget (40, refilled at 4 a second).
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    moving = false;
    await mover;
    const sent = sockets.reduce((sum, s) => sum + s.messages.filter((m) => m.type === 'next').length, 0);
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    console.log(`other shop's GET /locations beside ${CONNECTIONS * SUBSCRIPTIONS} subscriptions: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, worst ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length} probes; ${sent} events sent to the busy key in 6 s`);
    expect(p99).toBeLessThanOrEqual(BOUND_MS);
    // The budget: a 40-token bucket refilled at 4 a second sends at most about 40 + 4 × 7 s events (the connections took 21 of them).
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(40 + 4 * 7);
  });
});
