import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/db/orm.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';

/**
 * Rule (docs/reliability.md, "Fair sharing", the time budget): a request is answered once. The
 * deadline answers 503 only a request that has no answer yet: an answer already on its way (in the
 * hooks that run before it is written, such as recording it for its Idempotency-Key) is not
 * replaced; and what a handler returns or throws after the deadline answered is dropped. Fastify
 * logs a second answer as "Reply was already sent" (FST_ERR_REP_ALREADY_SENT, or "did you forget to
 * return reply" and ERR_HTTP_HEADERS_SENT), and an error after it as "Promise errored, but
 * reply.sent = true was set": none of these may appear.
 *
 * Before: a PATCH with an Idempotency-Key answered 404 while the database was slow to store that
 * answer for its key; the deadline fired meanwhile, sent 503 over it, and the 404 then tried to
 * leave too: the client got 503, the key kept 404, and the log said "Reply was already sent" twice
 * with an "unexpected error" (ERR_HTTP_HEADERS_SENT) between.
 */

const DEADLINE_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Line { level: number; msg?: string; err?: { message?: string; code?: string } }

/** The deadline's own lines: its warning, and its 503 as the error handler logs it. */
const deadlineOwn = (l: Line) => l.msg === 'request deadline exceeded' || (l.msg === 'dependency unavailable' && /did not finish within its \d+ ms budget/.test(l.err?.message ?? ''));

/** The log lines at warn and above, as `level message (error)`, except the deadline's own. */
function problems(lines: Line[]): string[] {
  return lines.filter((l) => l.level >= 40 && !deadlineOwn(l))
    .map((l) => `${l.level} ${l.msg ?? ''} ${l.err?.code ?? ''} ${l.err?.message ?? ''}`.trim());
}

describe(`a request is answered once: an answer still in its onSend hooks at the deadline (${databaseLabel})`, () => {
  const shop = uniqueShopId('answer-once-any');
  const lines: Line[] = [];
  let orm: Orm;
  let app: App;
  let key: string;
  /** Held answers wait in an onSend hook (as one waits to be recorded for its Idempotency-Key) until released. */
  let release: () => void = () => {};

  beforeAll(async () => {
    orm = await openTestOrm();
    await loadDataset(orm.em, toDataset(datasetJson(shop)));
    key = (await createApiKey(orm.em.fork(), { shopId: shop, scopes: ['read'], expiresInMs: null })).key;
    const config = { ...loadConfig({}), dataDir: 'memory://', rateLimitBurst: 1e9, rateLimitRefillPerSecond: 1e9, loadShedLagMs: 0, requestDeadlineMs: DEADLINE_MS };
    app = await buildApp({ config, orm, logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line) as Line) } } as never });
    const held = new Promise<void>((resolve) => { release = resolve; });
    app.addHook('onSend', async (request, _reply, payload) => {
      if (request.headers['x-hold-answer'] !== undefined) await held;
      return payload;
    });
    await app.ready();
  });
  afterAll(async () => {
    release();
    await app?.close();
    await orm?.close();
  });

  it('REST and /graphql: the answer held past the deadline leaves whole, as the only answer, and nothing is logged as sent twice', async () => {
    lines.length = 0;
    const headers = { authorization: `Bearer ${key}`, 'x-hold-answer': '1' };
    const rest = app.inject({ method: 'GET', url: '/api/v1/locations', headers });
    const graphql = app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: '{ locations { locationId } }' } });
    await sleep(DEADLINE_MS + 300);
    release();
    const [r, g] = await Promise.all([rest, graphql]);
    await sleep(100);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().data.locations.map((l: { locationId: string }) => l.locationId).sort()).toEqual(['101', '102', '103']);
    expect(g.statusCode, g.body).toBe(200);
    expect(g.json().data.locations.map((l: { locationId: string }) => l.locationId).sort()).toEqual(['101', '102', '103']);
    expect(lines.filter((l) => l.level >= 40).map((l) => `${l.level} ${l.msg ?? ''}`)).toEqual([]);
  });
});

describe.runIf(usingPostgres)('a request is answered once, also when its answer is slow to record (PostgreSQL)', () => {
  const shop = uniqueShopId('answer-once');
  const lines: Line[] = [];
  let orm: Orm;
  let app: App;
  let key: string;
  let locker: pg.Client;
  let watcher: pg.Client;

  beforeAll(async () => {
    orm = await openTestOrm();
    await loadDataset(orm.em, toDataset(datasetJson(shop)));
    key = (await createApiKey(orm.em.fork(), { shopId: shop, scopes: ['read', 'write'], expiresInMs: null })).key;
    const config = { ...loadConfig({}), dataDir: 'memory://', rateLimitBurst: 1e9, rateLimitRefillPerSecond: 1e9, loadShedLagMs: 0, requestDeadlineMs: DEADLINE_MS };
    app = await buildApp({ config, orm, logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line) as Line) } } as never });
    await app.ready();
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([locker.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await app?.close();
    await orm?.close();
    await locker?.end();
    await watcher?.end();
  });

  const patchUnknown = (idempotencyKey: string) => app.inject({
    method: 'PATCH', url: '/api/v1/raw-materials/NO-SUCH-VARIANT/inventory',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    payload: { updates: [{ locationId: '101', delta: 1 }] },
  });


  /**
   * Holds the key's row with `statement` (the watcher's transaction), lets the handler past the table
   * lock, and keeps the row until the deadline has passed; the locks must be set well before it.
   */
  async function holdKeyPastDeadline(statement: string, idempotencyKey: string, started: number): Promise<void> {
    await watcher.query('begin');
    await watcher.query(statement, [shop, idempotencyKey]);
    await locker.query('rollback');
    const locked = Date.now() - started;
    expect(locked, 'the test set its locks before the deadline').toBeLessThan(DEADLINE_MS / 2);
    await sleep(DEADLINE_MS + 300 - locked);
    await watcher.query('commit');
  }
  /** Waits until the write has claimed its key (the test's locks then hold it mid-way), well before the deadline. */
  async function claimed(idempotencyKey: string, started: number): Promise<void> {
    while ((await watcher.query('select 1 from idempotency_keys where shop_id = $1 and key = $2', [shop, idempotencyKey])).rowCount === 0) {
      if (Date.now() - started > DEADLINE_MS / 2) throw new Error('the key was not claimed in time');
      await sleep(5);
    }
  }
  it('a 404 whose Idempotency-Key record waits past the deadline leaves as the one 404, and its retry replays it; nothing is sent twice', async () => {
    const idempotencyKey = `once-${Date.now()}`;
    lines.length = 0;
    // The handler waits for the materials table until the key is claimed and its row locked, so
    // storing the 404 for the key (an UPDATE of that row) waits past the deadline.
    await locker.query('begin');
    await locker.query('lock table materials in access exclusive mode');
    const started = Date.now();
    const answer = patchUnknown(idempotencyKey);
    await claimed(idempotencyKey, started);
    // The answer is built and waits for the key's row; the deadline passes meanwhile.
    await holdKeyPastDeadline('select 1 from idempotency_keys where shop_id = $1 and key = $2 for update', idempotencyKey, started);
    const res = await answer;
    await sleep(100);
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(problems(lines)).toEqual([]);
    // What the client got is what the key replays.
    const retry = await patchUnknown(idempotencyKey);
    expect(retry.statusCode).toBe(404);
    expect(retry.headers['idempotency-replayed']).toBe('true');
  });

  it('a write whose key was taken over while the deadline answered 503: the 503 is the answer, the write rolls back, and its refusal is not sent after it', async () => {
    const idempotencyKey = `over-${Date.now()}`;
    const level = async () => (await watcher.query<{ available: string }>(
      `select available::text from material_levels where shop_id = $1 and variant_id = 'VMAT-VAR-0001' and location_id = '101'`, [shop])).rows[0]?.available;
    const before = await level();
    lines.length = 0;
    await locker.query('begin');
    await locker.query('lock table materials in access exclusive mode');
    const started = Date.now();
    const answer = app.inject({
      method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0001/inventory',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      payload: { updates: [{ locationId: '101', delta: 1 }] },
    });
    await claimed(idempotencyKey, started);
    // Another instance's retry takes the key over (its claim is new); the write's record of its
    // outcome, in its own transaction, waits for that row and then finds the claim is not its own.
    await holdKeyPastDeadline(`update idempotency_keys set claim_token = 'taken-over' where shop_id = $1 and key = $2`, idempotencyKey, started);
    const res = await answer;
    await sleep(100);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'UNAVAILABLE' });
    expect(problems(lines)).toEqual([]);
    expect(lines.some((l) => l.msg === 'request failed after its deadline')).toBe(true);
    expect(await level()).toBe(before);
  });
});
