// One measurement = one load-runner process against one server, with the server's peak RSS over it.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { peakRssMiB, resetPeakRss, runNode, waitIdle, type Server } from './processes.ts';
import { answered, type HttpRequestSpec, type RunnerResult, type RunnerSpec } from './runner-types.ts';
import type { Scenario } from './scenarios.ts';

export interface Measurement extends RunnerResult {
  connections: number;
  /** Peak RSS (VmHWM) of the server over this measurement, MiB. */
  rssMiB: number | null;
  /** 1-minute load average when the measurement started (other work on the machine). */
  load1: number;
}

export interface Probe {
  status: number;
  /** X-Query-Count of the answer (SQL statements of the operation; the key lookup adds one). */
  sql: number | null;
  body: string;
  problem: string | null;
  /** Time from sending to the end of the body, ms (the orchestrator's clock). */
  ms: number;
  etag: string | null;
}

export interface MeasureContext {
  workDir: string;
  warmupSeconds: number;
  durationSeconds: number;
  timeoutSeconds: number;
  /** Statements running on the benchmark database, to wait for abandoned requests between runs. */
  activeStatements: () => Promise<number>;
}

/** One request, checked: 2xx (or the status the spec expects), and no GraphQL `errors`. */
export async function probe(server: Server, spec: HttpRequestSpec, body = spec.bodies?.[0]): Promise<Probe> {
  const started = performance.now();
  const response = await fetch(server.baseUrl + spec.path, {
    method: spec.method, headers: spec.headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(300_000),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const count = response.headers.get('x-query-count');
  let problem = answered(spec, response.status) ? null : `HTTP ${response.status}: ${text.slice(0, 500)}`;
  if (!problem && response.ok && spec.path.endsWith('/graphql')) {
    const errors = (JSON.parse(text) as { errors?: unknown[] }).errors;
    if (errors?.length) problem = `GraphQL errors: ${JSON.stringify(errors).slice(0, 500)}`;
  }
  return { status: response.status, sql: count === null ? null : Number(count), body: text, problem, ms, etag: response.headers.get('etag') };
}

export async function measure(ctx: MeasureContext, server: Server, scenario: Scenario, spec: HttpRequestSpec, connections: number): Promise<Measurement> {
  const runner: RunnerSpec = {
    baseUrl: server.baseUrl, request: spec, connections, warmupSeconds: ctx.warmupSeconds, durationSeconds: ctx.durationSeconds,
    timeoutSeconds: ctx.timeoutSeconds, minSamples: connections === 1 ? 3 : 0, ...(scenario.buildRuns ? { buildRuns: scenario.buildRuns } : {}),
  };
  resetPeakRss(server.pid);
  const load1 = Math.round(loadavg()[0]! * 100) / 100;
  const out = await runNode(['bench/load-runner.ts', JSON.stringify(runner)], process.env, join(ctx.workDir, 'runner.log'));
  const result = JSON.parse(out.trim().split('\n').pop()!) as RunnerResult;
  for (const wo of scenario.buildRuns?.workOrders ?? []) wo.updatedAt = result.tokens?.[wo.workOrderId] ?? wo.updatedAt;
  delete result.tokens;
  await waitIdle(server, ctx.activeStatements);
  return { ...result, connections, rssMiB: peakRssMiB(server.pid), load1 };
}

/** `data` of two envelopes with keys sorted, for the floor's same-rows-and-shape check. */
export function sameData(a: string, b: string): boolean {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
    return value;
  };
  const data = (text: string) => JSON.stringify(canonical((JSON.parse(text) as { data?: unknown }).data));
  try {
    return data(a) === data(b);
  } catch {
    return false;
  }
}
