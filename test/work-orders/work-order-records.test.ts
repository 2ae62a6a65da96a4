import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryStats } from '../../src/db/query-stats.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { graphqlCaller, outcome, USER_ERRORS } from '../helpers/graphql-payloads.ts';

let t: TestApp;
let key: string;
let readKey: string;
let otherKey: string;
const shop = uniqueShopId('gql-wo-records');
const other = uniqueShopId('gql-wo-records-other');

const run = (id: string, status: string, quantity: number) => ({
  buildRunId: id, status, runType: 'production', startedAt: T0, completedAt: status === 'completed' ? T0 : null, items: [{ itemId: 'woi_1', quantity }], picks: [],
});
// Ten units built by a completed run, two more by a run that was reversed.
const built = { buildRuns: [run('run-a', 'completed', 10), run('run-gone', 'reversed', 2)] };
// A run that built two items: 10 of woi_1 and 4 of woi_2 (of an item list of 10 and 5).
const twoItems = {
  items: [
    { itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 10, completedQuantity: 0 },
    { itemId: 'woi_2', ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: 5, completedQuantity: 0 },
  ],
  buildRuns: [{ ...run('run-a', 'completed', 10), items: [{ itemId: 'woi_1', quantity: 10 }, { itemId: 'woi_2', quantity: 4 }] }],
};

const WRITES = {
  addQcReview: {
    params: '$buildRunId: ID!, $decision: QcDecision, $items: [QcReviewItemInput!], $note: String, $reviewerName: String',
    args: 'buildRunId: $buildRunId, decision: $decision, items: $items, note: $note, reviewerName: $reviewerName', vars: { buildRunId: 'run-a', decision: 'approved' }, part: 'qcReviews' },
  addReworkItem: {
    params: '$description: String!, $quantity: Decimal!, $buildRunId: ID', args: 'description: $description, quantity: $quantity, buildRunId: $buildRunId', vars: { description: 'Re-pour', quantity: '1' }, part: 'reworkItems' },
  resolveReworkItem: { params: '$reworkItemId: ID!', args: 'reworkItemId: $reworkItemId', vars: {}, part: 'reworkItems' },
  addWorkOrderDocument: { params: '$name: String!, $url: String!', args: 'name: $name, url: $url', vars: { name: 'Spec', url: 'https://files.example.com/spec.pdf' }, part: 'documents' },
  addWorkOrderMessage: { params: '$body: String!, $authorName: String', args: 'body: $body, authorName: $authorName', vars: { body: 'Jars arrive Tuesday.' }, part: 'conversation' },
} as const;
type WriteName = keyof typeof WRITES;
const NAMES = Object.keys(WRITES) as WriteName[];
// Rework item ids are unique shop-wide: each work order's open item is `rw-<work order id>`.
const openRework = (id: string) => ({ reworkItems: [{ reworkItemId: `rw-${id}`, description: 'Re-centre wicks', quantity: 1, status: 'open', buildRunId: 'run-a', createdAt: T0 }] });

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [
    ...NAMES.flatMap((name) => ['ok', 'guard'].map((use) => workOrder(`wo_${name}_${use}`, 'quality_control', { ...built, ...openRework(`wo_${name}_${use}`) }))),
    workOrder('wo_qc_rules', 'quality_control', built),
    workOrder('wo_qc_items', 'quality_control', twoItems),
    workOrder('wo_qc_rest', 'quality_control', twoItems),
    workOrder('wo_qc_input', 'quality_control', twoItems),
    workOrder('wo_rework_rules', 'in_progress', built),
    workOrder('wo_closed', 'completed', built),
    workOrder('wo_text_rules', 'ready'),
    workOrder('wo_flow', 'qc_approved', built),
    workOrder('wo_resolve_rules', 'quality_control', { ...built, ...openRework('wo_resolve_rules') }),
    // Same work, one run against forty: a record write must not cost more statements with more history.
    workOrder('wo_runs_1', 'quality_control', { buildRuns: [run('run-a', 'completed', 1)] }),
    workOrder('wo_runs_40', 'quality_control', { buildRuns: Array.from({ length: 40 }, (_, n) => run(n === 0 ? 'run-a' : `run-${n}`, 'completed', 1)) }),
  ])));
  await t.load(toDataset(datasetJson(other)));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

const gql = graphqlCaller(() => t, () => key);

const mutationOf = (name: WriteName) =>
  `mutation($id: ID!, $token: DateTime!, ${WRITES[name].params}) { ${name}(workOrderId: $id, expectedUpdatedAt: $token, ${WRITES[name].args}) { workOrderRecordWrite { workOrderId updatedAt recordId } ${USER_ERRORS} } }`;

/** Sends one record write with the work order's current token unless `token` is given; returns its result or failure. */
async function write(name: WriteName, id: string, vars: Record<string, unknown> = {}, options: { k?: string; token?: string; stats?: QueryStats } = {}) {
  const token = options.token ?? (await read(id)).updatedAt;
  const defaults = name === 'resolveReworkItem' ? { reworkItemId: `rw-${id}` } : WRITES[name].vars;
  return outcome(await gql(mutationOf(name), { id, token, ...defaults, ...vars }, options.k ?? key, options.stats), name);
}

const READ = `query($id: ID!) { workOrder(workOrderId: $id) {
  status updatedAt
  qcReviews { reviewId buildRunId decision items { itemId approvedQuantity failedQuantity } note reviewerName createdAt }
  reworkItems { reworkItemId description quantity status buildRunId createdAt resolvedAt }
  documents { documentId name url createdAt }
  conversation { messageId authorName body createdAt }
} }`;
async function read(id: string): Promise<any> {
  const body = await gql(READ, { id });
  expect(body.errors).toBeUndefined();
  return body.data.workOrder;
}

describe('work-order record writes', () => {
  it.each(NAMES)('%s writes its record and moves the token; the workOrder query, REST GET and the REST list all show it', async (name) => {
    const id = `wo_${name}_ok`;
    const before = await read(id);
    const { result, failure } = await write(name, id);
    expect(failure).toBeNull();
    expect(result.workOrderId).toBe(id);
    expect(Date.parse(result.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    const after = await read(id);
    expect(after.updatedAt).toBe(result.updatedAt);
    const part = WRITES[name].part;
    const record = after[part].find((r: any) => Object.values(r).includes(result.recordId));
    expect(record).toBeDefined();
    if (name === 'resolveReworkItem') expect(record).toMatchObject({ reworkItemId: `rw-${id}`, status: 'resolved', resolvedAt: result.updatedAt });
    else expect(after[part]).toHaveLength(before[part].length + 1);

    const rest = await t.get(`/api/v1/work-orders/${id}`, key);
    expect(rest.body.data.updatedAt).toBe(result.updatedAt);
    expect(rest.body.data[part].map((r: any) => Object.values(r).includes(result.recordId))).toContain(true);
    const list = await t.get('/api/v1/work-orders?sortBy=updatedAt&sortDir=desc&pageSize=1', key);
    expect(list.body.data.rows[0]).toMatchObject({ workOrderId: id, updatedAt: result.updatedAt });
  });

  it.each(NAMES)('%s needs the write scope: a read-only key gets FORBIDDEN_SCOPE and nothing changes', async (name) => {
    const id = `wo_${name}_guard`;
    const before = await read(id);
    const body = await write(name, id, {}, { k: readKey });
    expect(body.failure).toMatchObject({ kind: 'error', code: 'FORBIDDEN_SCOPE' });
    expect(await read(id)).toEqual(before);
  });

  it.each(NAMES)('%s is tenant-scoped: another shop\'s key gets NOT_FOUND for this shop\'s work order', async (name) => {
    const id = `wo_${name}_guard`;
    const before = await read(id);
    const body = await write(name, id, {}, { k: otherKey, token: before.updatedAt });
    expect(body.failure?.code).toBe('NOT_FOUND');
    expect(await read(id)).toEqual(before);
  });

  it.each(NAMES)('%s with a stale expectedUpdatedAt is CONFLICT, as on REST, and writes nothing', async (name) => {
    const id = `wo_${name}_guard`;
    const before = await read(id);
    const body = await write(name, id, {}, { token: new Date(Date.parse(before.updatedAt) - 1).toISOString() });
    expect(body.failure?.code).toBe('CONFLICT');
    expect(body.failure?.message).toContain('was changed since expectedUpdatedAt');
    expect(await read(id)).toEqual(before);
  });
});

describe('record writes: SQL statements', () => {
  it('a QC review, a rework item and a message cost the same statements on a work order with 1 build run or 40', async () => {
    const counts: Record<string, number[]> = {};
    for (const id of ['wo_runs_1', 'wo_runs_40']) {
      for (const [name, vars] of [['addQcReview', {}], ['addReworkItem', { buildRunId: null }], ['addWorkOrderMessage', {}]] as const) {
        const stats: QueryStats = { count: 0, queries: [] };
        expect((await write(name, id, vars, { stats })).failure).toBeNull();
        (counts[name] ??= []).push(stats.count);
      }
    }
    for (const [name, [one, forty]] of Object.entries(counts)) {
      // At least the transaction, the lock, the insert and the new token: a real count, not an empty one.
      expect(one, name).toBeGreaterThanOrEqual(5);
      expect(forty, name).toBe(one);
      expect(one, name).toBeLessThanOrEqual(10);
    }
  });
});

describe('QC reviews', () => {
  it('a live run is reviewed once: a second review is CONFLICT (approved + failed would exceed what it built)', async () => {
    const first = await write('addQcReview', 'wo_qc_rules', { decision: 'rejected', reviewerName: 'Zoe', note: 'Wicks off-centre' });
    expect(first.failure).toBeNull();
    const review = (await read('wo_qc_rules')).qcReviews[0];
    expect(review).toEqual({
      reviewId: first.result.recordId, buildRunId: 'run-a', decision: 'rejected', note: 'Wicks off-centre', reviewerName: 'Zoe',
      items: [{ itemId: 'woi_1', approvedQuantity: '0', failedQuantity: '10' }], createdAt: first.result.updatedAt,
    });
    const second = await write('addQcReview', 'wo_qc_rules', { decision: 'approved' });
    expect(second.failure?.code).toBe('CONFLICT');
    expect(second.failure?.message).toMatch(/every unit build run run-a built \(woi_1 × 10\) was already reviewed: approved \+ failed would exceed what it built/);
  });

  it('per item: part of a run is judged now, the rest later; approved + failed per item never exceeds what the run built', async () => {
    const first = await write('addQcReview', 'wo_qc_items', { decision: null, items: [
      { itemId: 'woi_1', approvedQuantity: '6', failedQuantity: '1.5' },
      { itemId: 'woi_2', approvedQuantity: '4', failedQuantity: '0' },
    ] });
    expect(first.failure).toBeNull();
    const second = await write('addQcReview', 'wo_qc_items', { decision: null, items: [{ itemId: 'woi_1', approvedQuantity: '2.5', failedQuantity: '0' }] });
    expect(second.failure).toBeNull();
    const reviews = (await read('wo_qc_items')).qcReviews;
    expect(reviews.map((r: any) => [r.decision, r.items])).toEqual([
      ['rejected', [{ itemId: 'woi_1', approvedQuantity: '6', failedQuantity: '1.5' }, { itemId: 'woi_2', approvedQuantity: '4', failedQuantity: '0' }]],
      ['approved', [{ itemId: 'woi_1', approvedQuantity: '2.5', failedQuantity: '0' }]],
    ]);
    // One millionth more of woi_1 than the run built (10 = 6 + 1.5 + 2.5) is refused, naming the item.
    const over = await write('addQcReview', 'wo_qc_items', { decision: null, items: [{ itemId: 'woi_1', approvedQuantity: '0.000001', failedQuantity: '0' }] });
    expect(over.failure?.code).toBe('CONFLICT');
    expect(over.failure?.message).toContain('item woi_1: 0.000001 judged now, 10 reviewed before, 10 built');
    const whole = await write('addQcReview', 'wo_qc_items', { decision: 'approved' });
    expect(whole.failure?.code).toBe('CONFLICT');
    expect((await read('wo_qc_items')).qcReviews).toHaveLength(2);
    // REST reads back the same quantities (as JSON numbers: compared by their text).
    const rest = await t.request({ method: 'GET', url: '/api/v1/work-orders/wo_qc_items', key });
    expect(rest.body).toContain('"items":[{"itemId":"woi_1","approvedQuantity":6,"failedQuantity":1.5},{"itemId":"woi_2","approvedQuantity":4,"failedQuantity":0}]');
    expect(rest.body).toContain('"items":[{"itemId":"woi_1","approvedQuantity":2.5,"failedQuantity":0}]');
  });

  it('a decision without items judges every unit of the run not reviewed yet', async () => {
    const part = await write('addQcReview', 'wo_qc_rest', { decision: null, items: [{ itemId: 'woi_1', approvedQuantity: '4', failedQuantity: '0' }] });
    expect(part.failure).toBeNull();
    const rest = await write('addQcReview', 'wo_qc_rest', { decision: 'rejected' });
    expect(rest.failure).toBeNull();
    const reviews = (await read('wo_qc_rest')).qcReviews;
    expect(reviews[1]).toMatchObject({ decision: 'rejected', items: [
      { itemId: 'woi_1', approvedQuantity: '0', failedQuantity: '6' }, { itemId: 'woi_2', approvedQuantity: '0', failedQuantity: '4' },
    ] });
  });

  it.each([
    ['items must name an item', { items: [] }, 'items'],
    ['an item is named once', { items: [{ itemId: 'woi_1', approvedQuantity: '1', failedQuantity: '0' }, { itemId: 'woi_1', approvedQuantity: '1', failedQuantity: '0' }] }, 'items[1].itemId'],
    ['quantities are at least 0', { items: [{ itemId: 'woi_1', approvedQuantity: '-1', failedQuantity: '2' }] }, 'items[0].approvedQuantity'],
    ['an item judges at least one unit', { items: [{ itemId: 'woi_1', approvedQuantity: '0', failedQuantity: '0' }] }, 'items[0]'],
    ['a decision agrees with the items', { decision: 'approved', items: [{ itemId: 'woi_1', approvedQuantity: '1', failedQuantity: '1' }] }, 'decision'],
    ['a decision or items is required', { decision: null }, 'decision'],
    ['an item is one the run built', { items: [{ itemId: 'woi_9', approvedQuantity: '1', failedQuantity: '0' }] }, 'items[0].itemId'],
  ])('bad QC input is INVALID_INPUT naming the field: %s', async (_rule, vars, field) => {
    const before = await read('wo_qc_input');
    const body = await write('addQcReview', 'wo_qc_input', { decision: null, ...vars });
    expect(body.failure?.code).toBe('INVALID_INPUT');
    expect(body.failure?.errors?.map((e: any) => e.field)).toContain(field);
    expect(await read('wo_qc_input')).toEqual(before);
  });

  it('a reversed run built nothing to review (CONFLICT); an unknown run is NOT_FOUND', async () => {
    const reversed = await write('addQcReview', 'wo_qc_rules', { buildRunId: 'run-gone' });
    expect(reversed.failure?.code).toBe('CONFLICT');
    expect(reversed.failure?.message).toContain('run-gone was reversed');
    const unknown = await write('addQcReview', 'wo_qc_rules', { buildRunId: 'run-nope' });
    expect(unknown.failure?.code).toBe('NOT_FOUND');
    expect(unknown.failure?.message).toContain('run-nope');
  });

  it('QC reviews and rework items belong to open work orders: on a completed one they are CONFLICT', async () => {
    expect((await write('addQcReview', 'wo_closed')).failure?.code).toBe('CONFLICT');
    expect((await write('addReworkItem', 'wo_closed')).failure?.code).toBe('CONFLICT');
    const after = await read('wo_closed');
    expect([after.qcReviews, after.reworkItems]).toEqual([[], []]);
  });
});

describe('rework items', () => {
  it('quantity is exact, greater than 0 and at most what the live runs (or the named run) built', async () => {
    for (const [quantity, message] of [['0', 'must be greater than 0'], ['10.000001', 'is more than the 10 unit(s) the live build runs built']] as const) {
      const body = await write('addReworkItem', 'wo_rework_rules', { quantity });
      expect(body.failure?.code).toBe('INVALID_INPUT');
      expect(body.failure?.message).toContain(`quantity: ${message === 'must be greater than 0' ? message : `10.000001 ${message}`}`);
    }
    const named = await write('addReworkItem', 'wo_rework_rules', { quantity: '10', buildRunId: 'run-a', description: 'Re-pour all ten' });
    expect(named.failure).toBeNull();
    const [item] = (await read('wo_rework_rules')).reworkItems;
    expect(item).toMatchObject({ reworkItemId: named.result.recordId, quantity: '10', status: 'open', buildRunId: 'run-a', resolvedAt: null });
  });

  it('a rework item names a run of this work order that was not reversed; its description is required', async () => {
    const unknown = await write('addReworkItem', 'wo_rework_rules', { buildRunId: 'run-nope' });
    expect(unknown.failure?.code).toBe('NOT_FOUND');
    const reversed = await write('addReworkItem', 'wo_rework_rules', { buildRunId: 'run-gone' });
    expect(reversed.failure?.message).toBe('buildRunId: build run run-gone was reversed');
    const empty = await write('addReworkItem', 'wo_rework_rules', { description: '  ' });
    expect(empty.failure?.message).toBe('description: must not be empty');
  });

  it('resolving an unknown rework item is NOT_FOUND; resolving one twice is CONFLICT', async () => {
    const unknown = await write('resolveReworkItem', 'wo_rework_rules', { reworkItemId: 'rw-nope' });
    expect(unknown.failure?.code).toBe('NOT_FOUND');
    const once = await write('resolveReworkItem', 'wo_resolve_rules');
    expect(once.failure).toBeNull();
    const twice = await write('resolveReworkItem', 'wo_resolve_rules');
    expect(twice.failure?.code).toBe('CONFLICT');
    expect(twice.failure?.message).toBe('rework item rw-wo_resolve_rules is already resolved');
  });

  it('an open rework item blocks completion (OPEN_REWORK) until it is resolved', async () => {
    const review = await write('addQcReview', 'wo_flow', { decision: 'approved' });
    expect(review.failure).toBeNull();
    const rework = await write('addReworkItem', 'wo_flow', { description: 'One jar chipped', quantity: '1', buildRunId: 'run-a' });
    const transition = (token: string) => gql(`mutation($id: ID!, $token: DateTime!) { transitionWorkOrder(workOrderId: $id, expectedUpdatedAt: $token, direction: forward) { workOrderTransition { status updatedAt } ${USER_ERRORS} } }`,
      { id: 'wo_flow', token });
    const blocked = outcome(await transition(rework.result.updatedAt), 'transitionWorkOrder');
    expect(blocked.failure?.code).toBe('CONFLICT');
    expect(blocked.failure?.blockers).toEqual([{ code: 'OPEN_REWORK', message: expect.any(String) }]);
    expect(blocked.failure?.message).toContain('OPEN_REWORK');
    const resolved = await write('resolveReworkItem', 'wo_flow', { reworkItemId: rework.result.recordId });
    const done = outcome(await transition(resolved.result.updatedAt), 'transitionWorkOrder');
    expect(done.failure).toBeNull();
    expect(done.result.status).toBe('completed');
  });
});

describe('documents and messages', () => {
  it('a document needs a name and an http(s) URL; a message needs a body', async () => {
    const ftp = await write('addWorkOrderDocument', 'wo_text_rules', { url: 'ftp://files.example.com/spec.pdf' });
    expect(ftp.failure?.code).toBe('INVALID_INPUT');
    expect(ftp.failure?.message).toBe('url: must be an http(s) URL');
    const noName = await write('addWorkOrderDocument', 'wo_text_rules', { name: '' });
    expect(noName.failure?.message).toBe('name: must not be empty');
    const noBody = await write('addWorkOrderMessage', 'wo_text_rules', { body: ' ' });
    expect(noBody.failure?.message).toBe('body: must not be empty');
    expect(await read('wo_text_rules')).toMatchObject({ documents: [], conversation: [] });
  });

  it('documents and messages are kept in the order they were added, with their author', async () => {
    for (const body of ['first', 'second']) expect((await write('addWorkOrderMessage', 'wo_text_rules', { body, authorName: 'Ana' })).failure).toBeNull();
    expect((await read('wo_text_rules')).conversation.map((m: any) => [m.body, m.authorName])).toEqual([['first', 'Ana'], ['second', 'Ana']]);
  });

  it('the whole work order after the write comes back in the same response when selected', async () => {
    const { updatedAt } = await read('wo_text_rules');
    const body = await gql(`mutation($token: DateTime!) { addWorkOrderDocument(workOrderId: "wo_text_rules", expectedUpdatedAt: $token, name: "Label", url: "http://x.example/l.png") { workOrderRecordWrite {
      recordId workOrder { updatedAt documents { documentId name } } } ${USER_ERRORS} } }`, { token: updatedAt });
    const { result, failure } = outcome(body, 'addWorkOrderDocument');
    expect(failure).toBeNull();
    expect(result.workOrder.documents).toEqual([{ documentId: result.recordId, name: 'Label' }]);
  });
});
