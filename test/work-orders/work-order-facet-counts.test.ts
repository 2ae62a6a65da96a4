import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORK_ORDER_STATUSES } from '../../src/modules/work-orders/work-order-vocabulary.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { graphqlCaller, outcome, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Rule (issue 21; house rule "aggregates a list needs are stored and kept current on write"): the
// work-order list without a narrowing filter takes its facets and total from per-shop counts
// (work_order_facet_counts) that the triggers on work_orders keep in the transaction of every write.
// After every kind of write the stored counts equal a recount of the work orders (no value with a
// count of 0 is stored), and the list answers exactly what counting the matching work orders
// answers, in as many statements.

let t: TestApp;
let key: string;
const shop = uniqueShopId('wo-facets');
const other = uniqueShopId('wo-facets-other');

const dataset = (shopId: string, extra: Record<string, unknown>[] = []) => toDataset(workOrderShop(shopId, [
  workOrder('wo_a', 'in_progress', { tags: ['fair', 'gift'], assigneeId: 'asg_ana' }),
  workOrder('wo_b', 'draft', { tags: ['market'], assigneeId: 'asg_zoe', productionLocationId: '102' }),
  workOrder('wo_c', 'ready', { tags: ['gift'], assigneeId: null, productionLocationId: null }),
  workOrder('wo_d', 'completed', { tags: [], assigneeId: 'asg_bob' }),
  workOrder('wo_p', 'paused', { tags: ['solo'], assigneeId: 'asg_zoe', productionLocationId: '103' }),
  ...extra,
]));

beforeAll(async () => {
  t = await createTestApp();
  await t.load(dataset(shop));
  await t.load(dataset(other));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const execute = <R = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  t.orm.em.fork().getConnection().execute<R[]>(text, params);

/** The stored counts of a shop that differ from a recount of its work orders (a stored 0 differs from no work order). */
async function countMismatches(shopId: string): Promise<unknown[]> {
  return execute(`with recount as (
      select 'status' as facet, status as value, count(*)::int as n from work_orders where shop_id = ? group by 1, 2
      union all select 'location', production_location_id, count(*)::int from work_orders where shop_id = ? and production_location_id is not null group by 1, 2
      union all select 'assignee', assignee_id, count(*)::int from work_orders where shop_id = ? and assignee_id is not null group by 1, 2
      union all select 'tag', tag, count(*)::int from work_orders w cross join unnest(w.tags) as tag where w.shop_id = ? group by 1, 2)
    select coalesce(s.facet, r.facet) as facet, coalesce(s.value, r.value) as value, s.count as stored, r.n as recounted
    from (select facet, value, count from work_order_facet_counts where shop_id = ?) s full join recount r on r.facet = s.facet and r.value = s.value
    where s.count is distinct from r.n`, [shopId, shopId, shopId, shopId, shopId]);
}

/**
 * The stored counts of both shops equal their recounts, and the list from the stored counts (no
 * filter) answers the facets and total of the list that counts its matches (every status asked
 * for: the same work orders) in as many statements. Returns the unfiltered list's data.
 */
async function expectExact(): Promise<any> {
  expect(await countMismatches(shop)).toEqual([]);
  expect(await countMismatches(other)).toEqual([]);
  const stored = await t.get('/api/v1/work-orders?pageSize=1', key);
  const counted = await t.get(`/api/v1/work-orders?pageSize=1&status=${WORK_ORDER_STATUSES.join(',')}`, key);
  expect(stored.status).toBe(200);
  expect({ facets: stored.body.data.facets, total: stored.body.data.total }).toEqual({ facets: counted.body.data.facets, total: counted.body.data.total });
  expect(stored.headers['x-query-count']).toBe(counted.headers['x-query-count']);
  return stored.body.data;
}

const gql = graphqlCaller(() => t, () => key);
const updatedAtOf = async (id: string) => (await t.get(`/api/v1/work-orders/${id}`, key)).body.data.updatedAt as string;
const patch = async (id: string, body: Record<string, unknown>) => {
  const res = await t.patch(`/api/v1/work-orders/${id}`, key, { expectedUpdatedAt: await updatedAtOf(id), ...body });
  expect(res.statusCode, res.body).toBe(200);
};
const transition = async (id: string, to: string) => {
  const res = await t.request({ method: 'PATCH', url: `/api/v1/work-orders/${id}/transition`, key, payload: { expectedUpdatedAt: await updatedAtOf(id), to },
    headers: { 'content-type': 'application/json' } });
  expect(res.statusCode, res.body).toBe(200);
};
const values = (entries: { value: string | null; count: number }[]) => entries.map((e) => [e.value, e.count]);

describe(`stored work-order facet counts on ${databaseLabel}`, () => {
  it('after a dataset load: the counts, with no location and unassigned derived from the total', async () => {
    const data = await expectExact();
    expect(data.total).toBe(5);
    expect(values(data.facets.status)).toEqual([['draft', 1], ['ready', 1], ['in_progress', 1], ['paused', 1], ['completed', 1]]);
    expect(data.facets.location).toEqual([
      { value: '101', label: 'Main Workshop', count: 2 }, { value: '103', label: 'Annex', count: 1 }, { value: '102', label: 'Downtown Store', count: 1 },
      { value: null, label: 'No location', count: 1 },
    ]);
    expect(data.facets.assignee).toEqual([
      { value: 'asg_zoe', label: 'Zoe', count: 2 }, { value: 'asg_ana', label: 'Ana', count: 1 }, { value: 'asg_bob', label: 'Bob', count: 1 },
      { value: null, label: 'Unassigned', count: 1 },
    ]);
    expect(values(data.facets.tag)).toEqual([['gift', 2], ['fair', 1], ['market', 1], ['solo', 1]]);
  });

  it('the unfiltered list reads the stored counts (a count changed behind the triggers shows), a narrowing filter counts the matches', async () => {
    await execute(`update work_order_facet_counts set count = count + 40 where shop_id = ? and facet = 'tag' and value = 'gift'`, [shop]);
    try {
      const data = (await t.get('/api/v1/work-orders?pageSize=1', key)).body.data;
      expect(data.facets.tag[0]).toEqual({ value: 'gift', label: 'gift', count: 42 });
      const filtered = (await t.get('/api/v1/work-orders?pageSize=1&tags=gift', key)).body.data;
      expect(filtered.facets.tag).toEqual([{ value: 'gift', label: 'gift', count: 2 }, { value: 'fair', label: 'fair', count: 1 }]);
    } finally {
      await execute(`update work_order_facet_counts set count = count - 40 where shop_id = ? and facet = 'tag' and value = 'gift'`, [shop]);
    }
    await expectExact();
  });

  it('a create counts the new work order under its status, location, assignee and tags', async () => {
    const body = await gql(`mutation Create($input: CreateWorkOrderInput!) { createWorkOrder(input: $input) { createdWorkOrder { workOrderId } ${USER_ERRORS} } }`,
      { input: { name: 'Faceted', sourceType: 'empty', tags: ['gift', 'new'], assigneeId: 'asg_ana', productionLocationId: '103' } });
    expect(outcome(body, 'createWorkOrder').failure).toBeNull();
    const data = await expectExact();
    expect(values(data.facets.tag)).toEqual([['gift', 3], ['fair', 1], ['market', 1], ['new', 1], ['solo', 1]]);
    expect(data.facets.status.find((f: { value: string }) => f.value === 'draft').count).toBe(2);
  });

  it('a transition moves one count between statuses; a value left with no work order is no facet value and has no row', async () => {
    await transition('wo_p', 'in_progress');
    const data = await expectExact();
    expect(values(data.facets.status)).toEqual([['draft', 2], ['ready', 1], ['in_progress', 2], ['completed', 1]]);
    expect(await execute(`select value from work_order_facet_counts where shop_id = ? and facet = 'status' and value = 'paused'`, [shop])).toEqual([]);
  });

  it('header edits move the assignee, tag and location counts (set, change, clear)', async () => {
    await patch('wo_p', { tags: ['fair'], assigneeId: null, productionLocationId: '101' });
    let data = await expectExact();
    expect(data.facets.tag.map((f: { value: string }) => f.value)).not.toContain('solo');
    expect(data.facets.assignee.find((f: { value: string | null }) => f.value === null)).toEqual({ value: null, label: 'Unassigned', count: 2 });
    await patch('wo_c', { assigneeId: 'asg_zoe', productionLocationId: '102', tags: ['gift', 'market'] });
    data = await expectExact();
    expect(values(data.facets.location)).toEqual([['101', 3], ['102', 2], ['103', 1]]);
  });

  it('a write that changes no facet column (a message) leaves every count as it was', async () => {
    const before = await execute(`select facet, value, count from work_order_facet_counts where shop_id = ? order by 1, 2`, [shop]);
    const body = await gql(`mutation($id: ID!, $token: DateTime!) { addWorkOrderMessage(workOrderId: $id, expectedUpdatedAt: $token, body: "hello") { workOrderRecordWrite { workOrderId } ${USER_ERRORS} } }`,
      { id: 'wo_a', token: await updatedAtOf('wo_a') });
    expect(outcome(body, 'addWorkOrderMessage').failure).toBeNull();
    expect(await execute(`select facet, value, count from work_order_facet_counts where shop_id = ? order by 1, 2`, [shop])).toEqual(before);
    await expectExact();
  });

  it('multi-row statements: an insert of several work orders, an update changing every facet column of several, a delete of several', async () => {
    await execute(`insert into work_orders (shop_id, work_order_id, short_id, name, status, priority, assignee_id, production_location_id, source_type, tags, created_at, updated_at)
      select shop_id, work_order_id || '_copy', short_id || '-C', name, status, priority, assignee_id, production_location_id, source_type, tags || array['copied'], created_at, updated_at
      from work_orders where shop_id = ?`, [shop]);
    let data = await expectExact();
    expect(data.total).toBe(12);
    // A tag twice on one work order counts twice, as the list counts its matches.
    await execute(`update work_orders set
        status = case status when 'draft' then 'ready' when 'ready' then 'cancelled' else status end,
        tags = case when tags @> array['gift'] then array_remove(tags, 'gift') || array['present'] else tags || array['misc', 'misc'] end,
        assignee_id = case when assignee_id = 'asg_ana' then null when assignee_id is null then 'asg_ana' else assignee_id end,
        production_location_id = case when production_location_id = '101' then null else coalesce(production_location_id, '101') end
      where shop_id = ? and work_order_id like '%_copy'`, [shop]);
    data = await expectExact();
    expect(data.facets.tag.find((f: { value: string }) => f.value === 'misc')).toBeDefined();
    await execute(`delete from work_orders where shop_id = ? and (work_order_id like '%_copy' or work_order_id = 'wo_d')`, [shop]);
    data = await expectExact();
    expect(data.total).toBe(5);
    expect(data.facets.tag.map((f: { value: string }) => f.value)).not.toContain('copied');
    expect(data.facets.assignee.map((f: { value: string }) => f.value)).not.toContain('asg_bob');
  });

  it('a statement rolled back (to a savepoint or with its transaction) leaves the counts as they were', async () => {
    const before = await execute(`select facet, value, count from work_order_facet_counts where shop_id = ? order by 1, 2`, [shop]);
    const em = t.orm.em.fork();
    await em.transactional(async (tx) => {
      await tx.execute(`savepoint s`, [], 'run');
      await tx.execute(`update work_orders set tags = array['gone'], status = 'cancelled' where shop_id = ?`, [shop], 'run');
      await tx.execute(`rollback to savepoint s`, [], 'run');
    });
    await expect(em.transactional(async (tx) => {
      await tx.execute(`delete from work_orders where shop_id = ?`, [shop], 'run');
      throw new Error('abandoned');
    })).rejects.toThrow('abandoned');
    expect(await execute(`select facet, value, count from work_order_facet_counts where shop_id = ? order by 1, 2`, [shop])).toEqual(before);
    await expectExact();
  });

  it('a dataset reload replaces the counts: values only the old work orders had are gone, the other shop is untouched', async () => {
    const otherBefore = await execute(`select facet, value, count from work_order_facet_counts where shop_id = ? order by 1, 2`, [other]);
    await t.load(dataset(shop, [workOrder('wo_q', 'quality_control', { tags: ['reloaded'], assigneeId: 'asg_ana', productionLocationId: '102' })]));
    const data = await expectExact();
    expect(data.total).toBe(6);
    expect(values(data.facets.tag)).toEqual([['gift', 2], ['fair', 1], ['market', 1], ['reloaded', 1], ['solo', 1]]);
    expect(await execute(`select value from work_order_facet_counts where shop_id = ? and value in ('new', 'present', 'misc')`, [shop])).toEqual([]);
    expect(await execute(`select facet, value, count from work_order_facet_counts where shop_id = ? order by 1, 2`, [other])).toEqual(otherBefore);
    // Loaded without work orders: no counts at all, and the list answers zero.
    await t.load(toDataset(workOrderShop(other, [])));
    expect(await execute(`select value from work_order_facet_counts where shop_id = ?`, [other])).toEqual([]);
    const empty = (await t.get('/api/v1/work-orders', await t.createKey(other, ['read']))).body.data;
    expect(empty).toMatchObject({ total: 0, rows: [], facets: { status: [], location: [], assignee: [], tag: [] } });
  });
});

describe.runIf(usingPostgres)('stored work-order facet counts under concurrent writers (PostgreSQL)', () => {
  it('two transactions moving work orders into and out of the same values, one emptying a value the other fills, both commit exact counts', async () => {
    const { Client } = await import('pg');
    const [one, two] = [new Client({ connectionString: process.env.DATABASE_URL }), new Client({ connectionString: process.env.DATABASE_URL })];
    await Promise.all([one.connect(), two.connect()]);
    try {
      await patch('wo_q', { tags: ['lonely'] });
      await one.query('begin');
      await two.query('begin');
      // One empties 'lonely' (its row goes at 0) and adds to 'gift'; two, waiting on those rows, fills 'lonely' again and adds to 'gift'.
      await one.query(`update work_orders set tags = array['gift'] where shop_id = $1 and work_order_id = 'wo_q'`, [shop]);
      let settled = false;
      const waiting = two.query(`update work_orders set tags = array['lonely', 'gift'], status = 'cancelled' where shop_id = $1 and work_order_id = 'wo_b'`, [shop])
        .finally(() => { settled = true; });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await one.query('commit');
      await waiting;
      await two.query('commit');
      const data = await expectExact();
      expect(data.facets.tag.find((f: { value: string }) => f.value === 'lonely')).toEqual({ value: 'lonely', label: 'lonely', count: 1 });
      expect(data.facets.tag.find((f: { value: string }) => f.value === 'gift').count).toBe(4);
    } finally {
      await Promise.all([one.query('rollback').catch(() => undefined), two.query('rollback').catch(() => undefined)]);
      await Promise.all([one.end(), two.end()]);
    }
  });

  it('concurrent header edits and transitions of one shop all land in the counts', async () => {
    const ids = ['wo_a', 'wo_b', 'wo_c', 'wo_p', 'wo_q'];
    await Promise.all(ids.map(async (id, i) => patch(id, { tags: [`t${i % 2}`, 'shared'], assigneeId: i % 2 ? 'asg_ana' : 'asg_zoe' })));
    const data = await expectExact();
    expect(data.facets.tag.find((f: { value: string }) => f.value === 'shared').count).toBe(5);
  });
});
