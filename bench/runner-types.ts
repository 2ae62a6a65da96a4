/** What the orchestrator (bench/run.ts) and the load runner (bench/load-runner.ts) exchange. */

export interface HttpRequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path and query, e.g. `/api/v1/raw-materials?search=a`. */
  path: string;
  headers: Record<string, string>;
  /** Bodies sent in turn by each connection (a write alternating +/- deltas); none for a GET. */
  bodies?: string[];
  /** The status that counts as an answer (304 for a conditional read); otherwise any 2xx. */
  expectStatus?: number;
}

/** Whether `status` is the answer `spec` expects. */
export function answered(spec: HttpRequestSpec, status: number): boolean {
  return spec.expectStatus === undefined ? status >= 200 && status < 300 : status === spec.expectStatus;
}

/** A build-run loop: one work order per connection, each request a fresh run with the latest token. */
export interface BuildRunLoop {
  key: string;
  workOrders: { workOrderId: string; itemId: string; updatedAt: string }[];
}

export interface RunnerSpec {
  baseUrl: string;
  request: HttpRequestSpec;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Per-request timeout. */
  timeoutSeconds: number;
  /** Fewer 2xx responses than this in the window: time sequential requests until there are (slow reads). */
  minSamples: number;
  buildRuns?: BuildRunLoop;
}

export interface RunnerResult {
  /** Answers (2xx, or the expected status) in the measured window. */
  ok: number;
  /** Non-2xx responses, connection errors and timeouts in warm-up and window. */
  failed: number;
  firstFailure: string | null;
  seconds: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  /** Latencies topped up by sequential requests after the window (too few samples in it). */
  toppedUp: boolean;
  /** Build runs: each work order's token after the last run, for the next measurement. */
  tokens?: Record<string, string>;
}

/** Nearest-rank percentile of sorted values (ms). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}
