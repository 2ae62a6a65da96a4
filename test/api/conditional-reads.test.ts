import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAfter } from '../../src/kernel/answer-clock.ts';
import { withQueryStats, type QueryStats } from '../../src/db/query-stats.ts';
import { currentTagIn, entityTag } from '../../src/http/requests/conditional-get.ts';
import { TRACKED_TABLES } from '../../migrations/Migration20261130100000.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Rules (docs/api-conventions.md, "Caching"): a read's tag is known before the read, from the shop's
// data version, which the database raises once at the commit of every transaction that changed a
// row of the shop: every kind of write changes the tags of the reads it affects, a write of another
// shop and a rolled-back write change nothing, a 304 runs no statement but the key lookup,
// concurrent writers of one shop neither deadlock nor lose a raise, and an answer that the clock
// alone changes (OVERDUE) carries the instant it changes at, after which its tag is not current.

type Json = Record<string, any>;
let t: TestApp;
let key: string;
let otherKey: string;
const shop = uniqueShopId('cond');
const other = uniqueShopId('cond-other');
const today = new Date().toISOString().slice(0, 10);
const resin = [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity: 10, completedQuantity: 0 }];
const dataset = (id: string) => toDataset(workOrderShop(id, [
  workOrder('wo_run', 'in_progress', { items: resin }),
  workOrder('wo_draft', 'draft'),
  workOrder('wo_due', 'in_progress', { dueDate: today }),
  workOrder('wo_past', 'in_progress', { dueDate: '2020-01-01' }),
]));

beforeAll(async () => {
  t = await createTestApp();
  await t.load(dataset(shop));
  await t.load(dataset(other));
  key = await t.createKey(shop, ['read', 'write']);
  otherKey = await t.createKey(other, ['read']);
});
afterAll(() => t.close());

const read = (url: string, headers: Record<string, string> = {}, as = key) => t.request({ method: 'GET', url, key: as, headers });
const tagOf = async (url: string, as = key) => String((await read(url, {}, as)).headers.etag);
const version = async (shopId = shop) => (await t.orm.em.fork().execute<{ version: string }[]>(
  'select version::text as version from shop_data_versions where shop_id = ?', [shopId]))[0]?.version ?? '0';
const tokenOf = async (id: string) => (await read(`/api/v1/work-orders/${id}`)).json().data.updatedAt as string;
const patchJson = (url: string, payload: Json) => t.request({ method: 'PATCH', url, key, headers: { 'content-type': 'application/json' }, payload });

/** Runs `write`, then expects each read of this shop to answer its old tag with 200 and a new tag, and the other shop's to stay current. */
async function expectWriteChangesTags(urls: string[], write: () => Promise<unknown>): Promise<void> {
  const before = await Promise.all(urls.map((url) => tagOf(url)));
  const theirs = await Promise.all(urls.map((url) => tagOf(url, otherKey)));
  await write();
  for (const [i, url] of urls.entries()) {
    const after = await read(url, { 'if-none-match': before[i]! });
    expect(after.statusCode, url).toBe(200);
    expect(after.headers.etag, url).not.toBe(before[i]);
    expect((await read(url, { 'if-none-match': theirs[i]! }, otherKey)).statusCode, `${url} of the other shop`).toBe(304);
  }
}

describe('a 304 is answered before the read', () => {
  it('a 304 sends no statement but the key lookup (which reads the data version in the same statement)', async () => {
    const url = '/api/v1/bills-of-materials/BOM-1001/buildable';
    const first = await read(url);
    expect(Number(first.headers['x-query-count'])).toBeGreaterThan(2);
    const stats: QueryStats = { count: 0, queries: [] };
    const again = await withQueryStats(() => read(url, { 'if-none-match': String(first.headers.etag) }), stats);
    expect(again.statusCode).toBe(304);
    expect(stats.count).toBe(1);
    expect(stats.queries[0]).toMatch(/from "api_keys"/);
    expect(stats.queries[0]).toMatch(/"shop_data_versions"/);
  });

  it('the tag is strong and names the request: another path, query or scope set has another tag', async () => {
    const readOnly = await t.createKey(shop, ['read']);
    const tags = [
      await tagOf('/api/v1/raw-materials'), await tagOf('/api/v1/raw-materials?originFilter=virtual'),
      await tagOf('/api/v1/raw-materials/VMAT-VAR-0001'), await tagOf('/api/v1/raw-materials', readOnly),
    ];
    for (const tag of tags) expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(new Set(tags).size).toBe(4);
    // The validated query, defaults included, is what counts: the default page size spelled out is the same request.
    expect(await tagOf('/api/v1/raw-materials?originFilter=virtual&pageSize=50')).toBe(tags[1]);
  });
});

describe('every kind of write changes the tags of the reads it affects, and no other shop\'s', () => {
  it('a ledger move (inventory PATCH) raises the data version by one and changes the material\'s and the buildable\'s tags', async () => {
    const from = BigInt(await version());
    await expectWriteChangesTags(['/api/v1/raw-materials/VMAT-VAR-0001', '/api/v1/bills-of-materials/BOM-1001/buildable'], async () => {
      const res = await patchJson('/api/v1/raw-materials/VMAT-VAR-0001/inventory', { updates: [{ locationId: '101', absolute: 7 }] });
      expect(res.json().data.okCount).toBe(1);
    });
    expect(BigInt(await version())).toBe(from + 1n);
  });

  it('a material PATCH', async () => {
    await expectWriteChangesTags(['/api/v1/raw-materials/VMAT-VAR-0001', '/api/v1/raw-materials'], async () => {
      expect((await patchJson('/api/v1/raw-materials/VMAT-VAR-0001', { vendor: 'WickWorks 2' })).statusCode).toBe(200);
    });
  });

  it('a BOM write (GraphQL updateBom)', async () => {
    await expectWriteChangesTags(['/api/v1/bills-of-materials/BOM-1001', '/api/v1/bills-of-materials'], async () => {
      const res = await t.graphql(key, `mutation($id: String!, $input: BomPatchInput!) { updateBom(bomId: $id, input: $input) { bomSave { bom { bomId } } ${USER_ERRORS} } }`,
        { id: 'BOM-1001', input: { name: 'Renamed candle' } });
      expect(res.body.data.updateBom.userErrors).toEqual([]);
    });
  });

  it('a work-order transition', async () => {
    await expectWriteChangesTags(['/api/v1/work-orders/wo_draft', '/api/v1/work-orders'], async () => {
      const res = await patchJson('/api/v1/work-orders/wo_draft/transition', { expectedUpdatedAt: await tokenOf('wo_draft'), to: 'ready' });
      expect(res.statusCode).toBe(200);
    });
  });

  it('a build run', async () => {
    await expectWriteChangesTags(['/api/v1/work-orders/wo_run/build-runs', '/api/v1/raw-materials/VMAT-VAR-0002'], async () => {
      const res = await patchJson('/api/v1/work-orders/wo_run/build-runs', { expectedUpdatedAt: await tokenOf('wo_run'), buildRunId: 'br_cond_1', items: [{ itemId: 'woi_1', quantity: 1 }] });
      expect(res.statusCode).toBe(200);
    });
  });

  it('a platform mirror write (what the Shopify sync, webhooks and reconciliation do to the mirror tables)', async () => {
    await expectWriteChangesTags(['/api/v1/locations'], () => t.orm.em.fork().transactional((em) =>
      em.execute('update platform_locations set name = name || \' (renamed)\' where shop_id = ? and location_id = ?', [shop, '101'])));
  });

  it('a dataset load', async () => {
    await expectWriteChangesTags(['/api/v1/locations', '/api/v1/work-orders'], () => t.load(dataset(shop)));
  });

  it('a rolled-back write changes neither the version nor any tag', async () => {
    const url = '/api/v1/raw-materials/VMAT-VAR-0001';
    const [tag, from] = [await tagOf(url), await version()];
    await expect(t.orm.em.fork().transactional(async (em) => {
      await em.execute('update materials set vendor = ? where shop_id = ? and variant_id = ?', ['Never', shop, 'VMAT-VAR-0001']);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await version()).toBe(from);
    expect((await read(url, { 'if-none-match': tag })).statusCode).toBe(304);
  });
});

describe('concurrent writers of one shop', () => {
  it('ten inventory PATCHes at once all succeed and raise the version once each', async () => {
    const from = BigInt(await version());
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      patchJson('/api/v1/raw-materials/VMAT-VAR-0001/inventory', { updates: [{ locationId: '101', absolute: 20 + i }] })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(BigInt(await version())).toBe(from + 10n);
  });

  // PGlite serves one connection, so two transactions never interleave there: the subject exists on a server only.
  if (usingPostgres) {
    it('two transactions that lock rows in crossing order before writing do not deadlock on the version row (it is taken at commit)', async () => {
      const from = BigInt(await version());
      let release!: () => void;
      const secondHasLocked = new Promise<void>((resolve) => { release = resolve; });
      let firstWrote!: () => void;
      const firstHasWritten = new Promise<void>((resolve) => { firstWrote = resolve; });
      const first = t.orm.em.fork().transactional(async (em) => {
        await em.execute('update materials set vendor = ? where shop_id = ? and variant_id = ?', ['First', shop, 'VMAT-VAR-0001']);
        firstWrote();
        await secondHasLocked;
        // Waits for the second's row lock until it commits: a version row taken at the first write would now be a deadlock.
        await em.execute('update materials set vendor = ? where shop_id = ? and variant_id = ?', ['First', shop, 'VMAT-VAR-0002']);
      });
      const second = t.orm.em.fork().transactional(async (em) => {
        await firstHasWritten;
        await em.execute('select 1 from materials where shop_id = ? and variant_id = ? for update', [shop, 'VMAT-VAR-0002']);
        release();
        await em.execute('update material_levels set available = available where shop_id = ? and variant_id = ?', [shop, 'VMAT-VAR-0002']);
      });
      await Promise.all([first, second]);
      expect(BigInt(await version())).toBe(from + 2n);
    });
  }
});

describe('answers that the clock changes', () => {
  it('an open work order due today has a tag holding until the next midnight (UTC), when it becomes OVERDUE; one already overdue has none', async () => {
    const due = await read('/api/v1/work-orders/wo_due');
    expect(due.json().data.warnings.map((w: Json) => w.code)).not.toContain('OVERDUE');
    const [, until] = /^"[A-Za-z0-9_-]+\.([0-9a-z]+)"$/.exec(String(due.headers.etag))!;
    expect(parseInt(until!, 36)).toBe(dayAfter(today).getTime());
    expect((await read('/api/v1/work-orders/wo_due', { 'if-none-match': String(due.headers.etag) })).statusCode).toBe(304);
    const past = await read('/api/v1/work-orders/wo_past');
    expect(past.json().data.warnings.map((w: Json) => w.code)).toContain('OVERDUE');
    expect(past.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('a tag whose instant has come is no longer current, and a tag with a forged instant never was', () => {
    const at = Date.UTC(2030, 0, 2);
    const tag = entityTag('base', at);
    expect(currentTagIn(tag, 'base', at - 1)).toBe(tag);
    expect(currentTagIn(tag, 'base', at)).toBeNull();
    expect(currentTagIn(tag.replace(/\.[0-9a-z]+"$/, `.${(at + 86_400_000).toString(36)}"`), 'base', at)).toBeNull();
  });
});

/** The events module's tables: no REST read shows them (GraphQL lists endpoints and deliveries), and a delivery row changes on every attempt. */
const EVENT_TABLES = ['event_sequences', 'events', 'webhook_endpoints', 'webhook_deliveries'];
/**
 * Stored aggregates of tracked tables, written only by triggers in the statement that changes their
 * source, which raises the shop's version already: the materials list's count and the BOM list's
 * stats (Migration20261202090000), the work-order list's facet counts (Migration20261202100000), the
 * materials' quantities (Migration20261206090000).
 */
const DERIVED_TABLES = ['material_list_counts', 'material_quantities', 'bom_list_stats', 'work_order_facet_counts'];
/**
 * Work queues no read shows: the storefront recompute markers (docs/shopify.md, "Storefront stock")
 * are written in the transaction of the change they follow, which raises the shop's version
 * already, and settled by the outbox drainer, which must not make every cached read stale.
 */
const QUEUE_TABLES = ['storefront_recomputes'];

describe('the version triggers cover every table of shop data', () => {
  it('every table with a shop column has the three note triggers, but the API keys, the idempotency records, the webhook inbox, the outgoing events (shown by no REST read; their deliveries change on every attempt), the stored list aggregates (derived from tracked tables) and the storefront recompute queue', async () => {
    const rows = await t.orm.em.fork().execute<{ table_name: string }[]>(
      `select distinct c.table_name from information_schema.columns c where c.table_schema = current_schema() and c.column_name = 'shop_id'`);
    const untracked = ['api_keys', 'idempotency_keys', 'shopify_webhook_events', 'shop_data_versions', ...EVENT_TABLES, ...DERIVED_TABLES, ...QUEUE_TABLES];
    const expected = [...rows.map((r) => r.table_name).filter((name) => !untracked.includes(name)), 'shops'].sort();
    expect(TRACKED_TABLES.map(([table]) => table).sort()).toEqual(expected);
    const triggers = await t.orm.em.fork().execute<{ table_name: string; count: string | number }[]>(
      `select event_object_table as table_name, count(distinct event_manipulation) as count from information_schema.triggers
       where trigger_schema = current_schema() and action_statement like '%bomcore_note_changed_shops%' group by event_object_table`);
    expect(triggers.filter((r) => Number(r.count) === 3).map((r) => r.table_name).sort()).toEqual(expected);
  });
});
