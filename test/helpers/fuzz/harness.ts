import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { datasetJson, toDataset } from '../dataset-factory.ts';
import { uniqueShopId } from '../database.ts';
import { stockShop } from '../material-fixtures.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import type { FuzzRequest, KeyKind, OpenApiDocument } from './openapi-requests.ts';
import { describeRequest } from './openapi-requests.ts';
import type { Hints } from './schema-values.ts';

/** Marker for "the work order's current updatedAt": resolved just before sending, so writes get past the 409 check. */
export const FRESH = '@fresh-updated-at';

/** Ids of the fuzzed shop (stockShop) and some it does not have, by parameter / property / argument name. */
export const FUZZ_HINTS: Hints = {
  variantId: ['44001', '44002', 'VMAT-VAR-0001', 'VMAT-VAR-0002', 'VMAT-VAR-0003', '44100', 'VMAT-VAR-9999'],
  id: ['BOM-1001', 'BOM-1002', 'ASM-1', 'ASM-2', 'wo_a', 'wo_b', 'wo_c', 'wo_d', '5001', '5002', 'gid://shopify/Order/5001', 'nope'],
  ids: ['5001', '5002', '9999', 'gid://shopify/Order/5001'],
  ownerId: ['BOM-1001', 'BOM-1002', 'ASM-1', 'ASM-2', 'BOM-9'],
  ownerType: ['bom', 'sub_assembly'],
  bomId: ['BOM-1001', 'BOM-1002', 'BOM-9999'],
  assemblyId: ['ASM-1', 'ASM-2', 'ASM-9'],
  workOrderId: ['wo_a', 'wo_b', 'wo_c', 'wo_d', 'wo_e', 'wo_zzz'],
  orderId: ['5001', '5002', '9999'],
  orderIds: ['5001', '5002'],
  sourceOrderIds: ['5001', '5002', '9999'],
  locationId: ['101', '102', '103', '999'],
  locationIds: ['101', '102', '999'],
  productionLocationId: ['101', '102', '999'],
  defaultConsumptionLocationId: ['101', '102'],
  assigneeId: ['asg_zoe', 'asg_ana', 'asg_bob', 'asg_nobody'],
  assignedTo: ['asg_zoe', 'asg_bob'],
  itemId: ['wo_a_i0', 'wo_b_i0', 'wo_b_i1', 'wo_c_i0', 'nope'],
  buildRunId: ['run-a1', 'run-a2', 'run-e1', 'run-new-1', 'run-new-2'],
  reworkItemId: ['rw-1'],
  costFactorId: ['CF-1', 'CF-9'],
  nodeId: ['44001', 'VMAT-VAR-0001', 'ASM-1'],
  expectedUpdatedAt: [FRESH, FRESH, FRESH, '2026-11-02T10:00:00.000Z'],
  vendorFilter: ['WaxCo', 'Acme'],
  search: ['wax', 'WICK', 'candle'],
  q: ['Work', 'wo_a'],
  tags: ['rush'],
  status: ['draft', 'ready,in_progress'],
};

export interface FuzzShop {
  t: TestApp;
  shop: string;
  otherShop: string;
  keys: Record<KeyKind, string | undefined>;
}

/** A test app with the shop being fuzzed (every kind of stock and work order) and a second shop whose key is used against it. */
export async function createFuzzShop(label: string): Promise<FuzzShop> {
  const t = await createTestApp();
  const shop = uniqueShopId(label);
  const otherShop = uniqueShopId(`${label}-other`);
  await t.load(toDataset(stockShop(shop)));
  await t.load(toDataset(datasetJson(otherShop)));
  return {
    t, shop, otherShop,
    keys: {
      none: undefined, bogus: 'bc_live_0000000000000000000000000000000000000000',
      read: await t.createKey(shop, ['read']), write: await t.createKey(shop, ['read', 'write']), otherShop: await t.createKey(otherShop, ['read', 'write']),
    },
  };
}

/** Requests sent, 5xx seen, and distinct failures (by operation, status and first problem) with one reproduction each. */
export class Census {
  requests = 0;
  fiveXx = 0;
  failures = 0;
  readonly examples = new Map<string, string>();

  record(signature: string, reproduction: string): void {
    this.failures++;
    if (!this.examples.has(signature)) this.examples.set(signature, reproduction);
  }

  summary(label: string): string {
    const lines = [`${label}: ${this.requests} requests, ${this.fiveXx} with a 5xx, ${this.failures} failing checks (${this.examples.size} distinct)`];
    for (const [signature, repro] of this.examples) lines.push(`  - ${signature}\n      ${repro}`);
    return lines.join('\n');
  }
}

/** The body of a response for a report: JSON compacted, long text cut. */
export function bodyExcerpt(response: LightMyRequestResponse): string {
  const text = response.body;
  return text.length > 500 ? `${text.slice(0, 500)}… (${text.length} chars)` : text;
}

type Responses = Record<string, { content?: Record<string, unknown> }>;

/** Is `status` with `mediaType` a response the document lists for this operation? */
function documented(doc: OpenApiDocument, template: string, method: string, status: number, mediaType: string): boolean {
  const responses = doc.paths[template]?.[method.toLowerCase()]?.responses as Responses | undefined;
  return Boolean(responses?.[String(status)]?.content?.[mediaType]);
}

function templateOf(doc: OpenApiDocument, method: string, url: string): string | null {
  const path = url.split('?')[0]!;
  for (const [template, ops] of Object.entries(doc.paths)) {
    if (!ops[method.toLowerCase()]) continue;
    if (new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path)) return template;
  }
  return null;
}

async function freshUpdatedAt(fs: FuzzShop, url: string): Promise<string | null> {
  const id = /\/work-orders\/([^/?]+)/.exec(url)?.[1];
  if (!id) return null;
  const res = await fs.t.app.inject({ method: 'GET', url: `/api/v1/work-orders/${id}`, headers: { authorization: `Bearer ${fs.keys.write}` } });
  return res.statusCode === 200 ? (res.json().data?.updatedAt ?? null) : null;
}

/**
 * Sends one fuzzed REST request and returns what is wrong with the answer (empty when nothing):
 * a 5xx; no X-Request-Id; an error that is not problem+json; a status or media type the OpenAPI
 * document does not list for the operation; a body that does not match its schema (checked by
 * the test app's validator, whose assertion failure is caught here and reported).
 */
export async function sendRest(fs: FuzzShop, doc: OpenApiDocument, request: FuzzRequest, census: Census): Promise<string[]> {
  let payload = request.payload;
  if (payload?.includes(FRESH)) payload = payload.replaceAll(FRESH, (await freshUpdatedAt(fs, request.url)) ?? '2026-11-02T10:00:00.000Z');
  const problems: string[] = [];
  let response: LightMyRequestResponse;
  census.requests++;
  try {
    response = await fs.t.request({ method: request.method as 'GET', url: request.url, key: fs.keys[request.key], headers: request.headers, ...(payload !== undefined ? { payload } : {}) });
  } catch (error) {
    // The validator asserts with expect(): a non-conforming JSON body lands here. Resend bare to report the answer.
    const raw = await fs.t.app.inject({ method: request.method as 'GET', url: request.url,
      headers: { ...(fs.keys[request.key] ? { authorization: `Bearer ${fs.keys[request.key]}` } : {}), ...request.headers }, ...(payload !== undefined ? { payload } : {}) });
    if (raw.statusCode >= 500) census.fiveXx++;
    const message = (error as Error).message.split('\n')[0]!;
    const signature = `${request.op} → ${raw.statusCode}: ${message.replaceAll(request.url, '<url>').replace(/`[^`]*`|"[^"]*"/g, '…').slice(0, 160)}`;
    census.record(signature, `${describeRequest({ ...request, ...(payload !== undefined ? { payload } : {}) })} → ${raw.statusCode} ${bodyExcerpt(raw)}`);
    return [`${signature}\n${describeRequest(request)}\n→ ${raw.statusCode} ${bodyExcerpt(raw)}`];
  }
  const status = response.statusCode;
  const mediaType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (status >= 500) { census.fiveXx++; problems.push(`status ${status}`); }
  if (!response.headers['x-request-id']) problems.push('no X-Request-Id');
  if (status >= 400 && mediaType !== 'application/problem+json') problems.push(`error ${status} is ${mediaType || 'no media type'}, not application/problem+json`);
  const template = templateOf(doc, request.method, request.url);
  if (template && !documented(doc, template, request.method, status, mediaType)) problems.push(`${status} ${mediaType} is not documented for ${request.method} ${template}`);
  if (problems.length > 0) {
    const signature = `${request.op} → ${status}: ${problems.join('; ')}`;
    census.record(signature, `${describeRequest({ ...request, ...(payload !== undefined ? { payload } : {}) })} → ${status} ${bodyExcerpt(response)}`);
    return [`${signature}\n${describeRequest(request)}\n→ ${status} ${bodyExcerpt(response)}`];
  }
  return [];
}

/** Number of runs: FUZZ_RUNS (the long run) or the CI default. */
export function fuzzRuns(ciDefault: number): { total: number; long: boolean } {
  const fromEnv = Number(process.env.FUZZ_RUNS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? { total: fromEnv, long: true } : { total: ciDefault, long: false };
}

/**
 * Runs a property over `arbitrary`. CI mode: stops at the first failing request and shrinks it (fast-check), so the
 * report names the smallest request that fails. Long mode (FUZZ_RUNS): sends every run, counts every failure, and
 * fails at the end with the census (one reproduction per distinct failure).
 */
export async function fuzz<T>(options: {
  arbitrary: fc.Arbitrary<T>;
  runs: number;
  long: boolean;
  seed?: number;
  check: (value: T) => Promise<string[]>;
  describe: (value: T) => string;
}): Promise<{ failed: boolean; report: string }> {
  // CI runs a fixed seed (a red build is reproducible); the long run explores a new one each time. FUZZ_SEED overrides both.
  const seed = Number(process.env.FUZZ_SEED) || options.seed || (options.long ? Date.now() % 2_147_483_647 : 11);
  const property = fc.asyncProperty(options.arbitrary, async (value) => {
    const problems = await options.check(value);
    if (problems.length > 0 && !options.long) throw new Error(problems.join('\n'));
  });
  const result = await fc.check(property, { numRuns: options.runs, seed, endOnFailure: false, maxSkipsPerRun: 100, markInterruptAsFailure: false });
  if (!result.failed) return { failed: false, report: '' };
  const example = result.counterexample ? options.describe(result.counterexample[0]) : '(no counterexample)';
  const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  return { failed: true, report: `seed ${result.seed}, path ${result.counterexamplePath}, shrunk ${result.numShrinks} times:\n${example}\n${cause}` };
}

/** The GraphQL request sent: key, media type, body (raw text, summarised when long). */
export function describeGraphql(r: { field: string; key: string; body: string; contentType: string; method?: 'GET' }): string {
  const body = r.body.length > 3000 ? `${r.body.slice(0, 1500)}… (${r.body.length} chars)` : r.body;
  return r.method === 'GET' ? `GET /graphql?${body} [${r.field}] key=${r.key}` : `POST /graphql [${r.field}] key=${r.key} content-type=${r.contentType} body=${body}`;
}

/**
 * Sends one fuzzed /graphql request and returns what is wrong with the answer: a 5xx, no
 * X-Request-Id, or an error with `extensions.code` INTERNAL (a bug reached the client).
 */
export async function sendGraphql(fs: FuzzShop, request: { field: string; key: KeyKind; body: string; contentType: string; method?: 'GET' }, census: Census): Promise<string[]> {
  let body = request.body;
  if (body.includes(FRESH) && request.method !== 'GET') {
    const id = /"workOrderId":"([^"\\]*)"/.exec(body)?.[1];
    const res = id ? await fs.t.app.inject({ method: 'GET', url: `/api/v1/work-orders/${encodeURIComponent(id)}`, headers: { authorization: `Bearer ${fs.keys.write}` } }) : null;
    body = body.replaceAll(FRESH, res?.statusCode === 200 ? res.json().data.updatedAt : '2026-11-02T10:00:00.000Z');
  }
  census.requests++;
  const key = fs.keys[request.key];
  const response = request.method === 'GET'
    ? await fs.t.app.inject({ method: 'GET', url: `/graphql?${body}`, headers: key ? { authorization: `Bearer ${key}` } : {} })
    : await fs.t.app.inject({ method: 'POST', url: '/graphql', payload: body,
      headers: { 'content-type': request.contentType, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  const problems: string[] = [];
  if (response.statusCode >= 500) { census.fiveXx++; problems.push(`status ${response.statusCode}`); }
  if (!response.headers['x-request-id']) problems.push('no X-Request-Id');
  let parsed: { errors?: { message?: string; extensions?: { code?: string } }[] } | null = null;
  try { parsed = JSON.parse(response.body); } catch { /* not JSON: the status check is what counts */ }
  const internal = parsed?.errors?.find((e) => e?.extensions?.code === 'INTERNAL');
  if (internal) problems.push(`INTERNAL error: ${internal.message}`);
  if (problems.length === 0) return [];
  const signature = `${request.field} → ${response.statusCode}: ${problems.join('; ')}`;
  const repro = `${describeGraphql({ ...request, body })} → ${response.statusCode} ${bodyExcerpt(response)}`;
  census.record(signature, repro);
  return [`${signature}\n${repro}`];
}
