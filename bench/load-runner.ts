// The load generator, its own process (spawned by bench/run.ts once per measurement): a warm-up,
// then a fixed window. Plain requests go through autocannon; build runs through a loop per work
// order, since each needs a fresh buildRunId and the token the previous answer returned.
// Usage: node bench/load-runner.ts '<RunnerSpec JSON>'  →  one RunnerResult JSON line on stdout.
import autocannon from 'autocannon';
import { answered, percentile, type RunnerResult, type RunnerSpec } from './runner-types.ts';

interface Tally { latencies: number[]; ok: number; failed: number; firstFailure: string | null }

const newTally = (): Tally => ({ latencies: [], ok: 0, failed: 0, firstFailure: null });

function fail(tally: Tally, what: string): void {
  tally.failed += 1;
  tally.firstFailure ??= what;
}

function cannon(spec: RunnerSpec, seconds: number, tally: Tally): Promise<void> {
  const { method, path, headers, bodies } = spec.request;
  const requests = bodies?.length ? bodies.map((body) => ({ method, path, headers, body })) : [{ method, path, headers }];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: spec.baseUrl, connections: spec.connections, duration: seconds, timeout: spec.timeoutSeconds, requests },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (answered(spec.request, status)) {
        tally.ok += 1;
        tally.latencies.push(ms);
      } else {
        fail(tally, `HTTP ${status} from ${method} ${path}`);
      }
    });
    instance.on('reqError', (error: Error) => fail(tally, `${error.message} (${method} ${path})`));
  });
}

async function timed(spec: RunnerSpec, body?: string): Promise<{ ms: number; status: number; text: string }> {
  const { method, path, headers } = spec.request;
  const started = performance.now();
  const response = await fetch(spec.baseUrl + path, {
    method, headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(spec.timeoutSeconds * 1000),
  });
  const text = await response.text();
  return { ms: performance.now() - started, status: response.status, text };
}

/** Slow reads: too few answers in the window, so time sequential requests (bounded) until there are enough. */
async function topUp(spec: RunnerSpec, tally: Tally): Promise<boolean> {
  const deadline = Date.now() + Math.max(60, spec.timeoutSeconds) * 1000;
  let added = false;
  while (tally.ok < spec.minSamples && Date.now() < deadline) {
    const { ms, status } = await timed(spec, spec.request.bodies?.[0]);
    if (!answered(spec.request, status)) return added;
    tally.ok += 1;
    tally.latencies.push(ms);
    added = true;
  }
  return added;
}

/** One loop per work order: PATCH …/build-runs with a new run id and the token of the previous answer. */
async function buildRunLoops(spec: RunnerSpec, measureFrom: number, until: number, tally: Tally): Promise<Record<string, string>> {
  const loop = spec.buildRuns!;
  const headers = { ...spec.request.headers, authorization: `Bearer ${loop.key}`, 'content-type': 'application/json' };
  const workOrders = loop.workOrders.slice(0, spec.connections);
  const tokens: Record<string, string> = {};
  await Promise.all(workOrders.map(async (wo, index) => {
    let token = wo.updatedAt;
    for (let n = 0; Date.now() < until; n += 1) {
      const body = JSON.stringify({ expectedUpdatedAt: token, buildRunId: `bench-${process.pid}-${index}-${n}`, items: [{ itemId: wo.itemId, quantity: 1 }] });
      const startedAt = Date.now();
      const started = performance.now();
      const response = await fetch(`${spec.baseUrl}/api/v1/work-orders/${wo.workOrderId}/build-runs`, { method: 'PATCH', headers, body });
      const text = await response.text();
      const ms = performance.now() - started;
      if (response.ok) {
        token = (JSON.parse(text) as { data: { workOrderUpdatedAt: string } }).data.workOrderUpdatedAt;
        if (startedAt >= measureFrom && Date.now() <= until) {
          tally.ok += 1;
          tally.latencies.push(ms);
        }
        continue;
      }
      fail(tally, `HTTP ${response.status} from PATCH build-runs: ${text.slice(0, 300)}`);
      const read = await fetch(`${spec.baseUrl}/api/v1/work-orders/${wo.workOrderId}`, { headers });
      if (read.ok) token = ((await read.json()) as { data: { updatedAt: string } }).data.updatedAt;
    }
    tokens[wo.workOrderId] = token;
  }));
  return tokens;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as RunnerSpec;
  const warm = newTally();
  const tally = newTally();
  let seconds = spec.durationSeconds;
  let toppedUp = false;
  let windowOk = 0;
  let tokens: Record<string, string> | undefined;
  if (spec.buildRuns) {
    const start = Date.now() + spec.warmupSeconds * 1000;
    tokens = await buildRunLoops(spec, start, start + spec.durationSeconds * 1000, tally);
    windowOk = tally.ok;
  } else {
    if (spec.warmupSeconds > 0) await cannon(spec, spec.warmupSeconds, warm);
    const started = performance.now();
    await cannon(spec, spec.durationSeconds, tally);
    seconds = (performance.now() - started) / 1000;
    windowOk = tally.ok;
    if (tally.ok < spec.minSamples) toppedUp = await topUp(spec, tally);
  }
  const sorted = tally.latencies.sort((a, b) => a - b);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
  const result: RunnerResult = {
    ok: tally.ok,
    failed: warm.failed + tally.failed,
    firstFailure: warm.firstFailure ?? tally.firstFailure,
    seconds: Math.round(seconds * 100) / 100,
    rps: Math.round((windowOk / seconds) * 10) / 10,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    toppedUp,
    ...(tokens ? { tokens } : {}),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
