import { mkdtempSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startIdleMemoryRelease } from '../../src/cli/idle-memory.ts';
import { killServersAfterEach, startServer, waitFor } from '../helpers/server-process.ts';

// `serve` gives memory back once idle (src/cli/idle-memory.ts): one memory-reducing collection after
// `idleMs` without a request in flight, only when the process grew since the last one.

const MB = 1024 * 1024;
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A real HTTP server whose requests take `holdMs` to answer. */
async function listen(holdMs = 0): Promise<{ server: Server; get: () => Promise<void> }> {
  const server = createServer((_req, res) => void setTimeout(() => res.end('ok'), holdMs));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const get = () => new Promise<void>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => res.resume().on('end', resolve)).on('error', reject).end();
  });
  return { server, get };
}

killServersAfterEach();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = pino({ level: 'silent' });

describe('idle memory release of serve', () => {
  it('rule: after idleMs without a request in flight, a process that grew gives memory back once — not again until more requests come', async () => {
    const { server, get } = await listen();
    let rss = 100 * MB;
    const collected: number[] = [];
    const release = startIdleMemoryRelease({ server, idleMs: 150, log, rss: () => rss, collect: () => { collected.push(rss); rss = 110 * MB; } })!;
    rss = 200 * MB; // grown by the requests
    await Promise.all([get(), get(), get()]);
    await sleep(60);
    expect(collected).toEqual([]); // not idle long enough yet
    await sleep(300);
    expect(collected).toEqual([200 * MB]);
    expect(release.releases()).toEqual([{ before: 200 * MB, after: 110 * MB, pauseMs: expect.any(Number) }]);
    await sleep(300);
    expect(collected).toHaveLength(1); // idle, no new request: nothing more
    rss = 180 * MB;
    await get();
    await sleep(350);
    expect(collected).toEqual([200 * MB, 180 * MB]);
    release.stop();
  });

  it('rule: nothing is collected while a request is in flight, however long the quiet before it', async () => {
    const { server, get } = await listen(500);
    let rss = 100 * MB;
    const collected: number[] = [];
    startIdleMemoryRelease({ server, idleMs: 100, log, rss: () => rss, collect: () => void collected.push(performance.now()) });
    rss = 300 * MB;
    const started = performance.now();
    const slow = get(); // answered after 500 ms
    await sleep(350);
    expect(collected).toEqual([]);
    await slow;
    await sleep(300);
    expect(collected).toHaveLength(1);
    expect(collected[0]! - started).toBeGreaterThanOrEqual(500 + 100 - 5);
  });

  it('rule: a process that did not grow by the threshold since the last release is left alone', async () => {
    const { server, get } = await listen();
    let rss = 100 * MB;
    const collected: number[] = [];
    startIdleMemoryRelease({ server, idleMs: 50, growthBytes: 32 * MB, log, rss: () => rss, collect: () => void collected.push(rss) });
    rss = 120 * MB; // +20 MB
    await get();
    await sleep(250);
    expect(collected).toEqual([]);
  });

  it('rule: BOMCORE_IDLE_GC_MS=0 turns it off', async () => {
    const { server } = await listen();
    expect(startIdleMemoryRelease({ server, idleMs: 0, log })).toBeNull();
  });

  it('the real collection gives back what a burst of garbage left: the resident set shrinks', async () => {
    const { server, get } = await listen();
    const release = startIdleMemoryRelease({ server, idleMs: 100, growthBytes: 16 * MB, log })!;
    // Garbage that survives young collections, then dies: V8 keeps the freed old-generation pages pooled.
    let keep: object[][] = [];
    for (let round = 0; round < 20; round++) {
      const batch: object[] = [];
      for (let i = 0; i < 100_000; i++) batch.push({ i, text: `row ${i}`, round });
      keep.push(batch);
      if (keep.length > 6) keep.shift();
    }
    keep = [];
    await get();
    await sleep(600);
    const [done] = release.releases();
    expect(done, 'one release ran').toBeDefined();
    expect(done!.after).toBeLessThan(done!.before - 16 * MB);
    release.stop();
  });

  it('rule: `bomcore serve` does it (BOMCORE_IDLE_GC_MS, BOMCORE_IDLE_GC_GROWTH_MB): after a burst of reads and the quiet time, it logs the memory it gave back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-idle-gc-'));
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir, LOG_LEVEL: 'debug', LOG_FORMAT: 'json', BOMCORE_IDLE_GC_MS: '500', BOMCORE_IDLE_GC_GROWTH_MB: '0' });
    const key = /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!;
    const headers = { authorization: `Bearer ${key}` };
    for (let round = 0; round < 8; round++) {
      await Promise.all(['/api/v1/raw-materials?pageSize=250', '/api/v1/bills-of-materials?pageSize=50', '/api/v1/work-orders?pageSize=50', '/api/v1/openapi.json']
        .map(async (path) => {
          const response = await fetch(`${server.address}${path}`, { headers });
          await response.arrayBuffer(); // read whole: an unread answer keeps its connection busy, and the drain waits for it
          expect(response.status).toBe(200);
        }));
    }
    const released = () => server.stdout().split('\n').find((l) => l.includes('"idle: memory given back"'));
    await waitFor(() => released() !== undefined, 'the idle release log line', 20_000);
    const logged = JSON.parse(released()!) as { rssBeforeMb: number; rssAfterMb: number; pauseMs: number };
    expect(logged.rssAfterMb).toBeLessThan(logged.rssBeforeMb);
    server.child.kill('SIGTERM');
    expect(await server.exited, server.stdout().split('\n').filter((l) => !l.includes('"incoming request"') && !l.includes('"request completed"')).join('\n')).toBe(0);
  }, 240_000);
});
