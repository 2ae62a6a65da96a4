import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ShopifyAdminApi } from './admin-api.ts';
import { ShopifyApiError } from './admin-api.ts';
import { requestOperation } from './operations.ts';

/**
 * A bulk export through `bulkOperationRunQuery`: start it, poll until Shopify has written the
 * JSONL, download the file to a private temporary folder (streamed: a 10,000-variant store is
 * never held in memory), then hand the lines out one parsed object at a time. The download comes
 * first so the caller's database transaction lasts as long as the writes, not the network.
 */
export interface BulkExportOptions {
  /** Pause between status polls. Default 1 s. */
  pollMs?: number;
  /** Give up when the operation has not finished after this long. Default 30 min. */
  timeoutMs?: number;
  /** Called after each poll with the objects Shopify has written so far. */
  onProgress?: (objectCount: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

interface RunAnswer { bulkOperationRunQuery: { bulkOperation: { id: string; status: string } | null; userErrors: { field: string[] | null; message: string; code: string | null }[] } | null }
interface StatusAnswer { bulkOperation: { id: string; status: string; errorCode: string | null; objectCount: string; url: string | null; partialDataUrl: string | null } | null }

export interface BulkFile {
  objectCount: number;
  /** The JSONL's objects in file order. */
  lines(): AsyncGenerator<Record<string, unknown>>;
  /** Removes the downloaded file. */
  dispose(): Promise<void>;
}

// Not unref'd: the caller awaits it, and in a CLI process an unref'd timer alone would let Node exit mid-await.
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function runBulkExport(api: ShopifyAdminApi, query: string, options: BulkExportOptions = {}): Promise<BulkFile> {
  const sleep = options.sleep ?? defaultSleep;
  const started = await api.request<RunAnswer>(requestOperation('bulk-operation-run'), { query });
  const payload = started.bulkOperationRunQuery;
  const userErrors = payload?.userErrors ?? [];
  if (!payload?.bulkOperation || userErrors.length > 0) {
    const text = userErrors.map((e) => `${e.code ?? 'ERROR'}: ${e.message}`).join('; ') || 'no bulk operation was started';
    throw new ShopifyApiError(`Shopify bulk export: ${text}`, { permanent: false, code: userErrors[0]?.code ?? 'BULK_NOT_STARTED' });
  }
  const id = payload.bulkOperation.id;
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  for (;;) {
    const { bulkOperation: op } = await api.request<StatusAnswer>(requestOperation('bulk-operation-status'), { id });
    if (!op) throw new ShopifyApiError(`Shopify bulk export ${id} is gone`, { permanent: false, code: 'BULK_GONE' });
    options.onProgress?.(Number(op.objectCount));
    if (op.status === 'COMPLETED') return download(op.url, Number(op.objectCount));
    if (op.status !== 'CREATED' && op.status !== 'RUNNING') {
      throw new ShopifyApiError(`Shopify bulk export ${id} ended ${op.status}${op.errorCode ? ` (${op.errorCode})` : ''}`, { permanent: false, code: op.errorCode ?? op.status });
    }
    if (Date.now() > deadline) throw new ShopifyApiError(`Shopify bulk export ${id} did not finish in time`, { permanent: false, code: 'BULK_TIMEOUT' });
    await sleep(options.pollMs ?? 1000);
  }
}

async function download(url: string | null, objectCount: number): Promise<BulkFile> {
  if (url === null) return { objectCount: 0, async *lines() { /* an empty export has no file */ }, async dispose() { /* nothing */ } };
  const dir = await mkdtemp(join(tmpdir(), 'bomcore-bulk-'));
  const file = join(dir, 'export.jsonl');
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10 * 60_000) });
    if (!response.ok || !response.body) throw new ShopifyApiError(`Shopify bulk export download: HTTP ${response.status}`, { permanent: false, code: `HTTP_${response.status}` });
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (error instanceof ShopifyApiError) throw error;
    throw new ShopifyApiError(`Shopify bulk export download: ${(error as Error).message}`, { permanent: false, code: 'NETWORK' });
  }
  return {
    objectCount,
    async *lines() {
      const reader = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
      for await (const line of reader) if (line.trim() !== '') yield JSON.parse(line) as Record<string, unknown>;
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
