import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

type Json = Record<string, any>;

// A shop built for ties: equal names in several cases, missing variant names, equal quantities,
// BOMs without SKU or price, work orders changed at the same instant. The expected orders are
// the paged lists' (rawMaterials, boms, workOrders), read with one page holding everything.

const virtual = (n: number, productName: string, variantName: string | null, vendor: string, available: number[]) => ({
  variantId: `VMAT-VAR-${String(n).padStart(3, '0')}`, productId: `VMAT-PROD-${n}`, inventoryItemId: `VMAT-INV-${n}`, productName, variantName,
  sku: `SKU-${n}`, vendor, unit: 'pcs', unitCost: 0.5, unitPrice: 0, levels: available.map((a, i) => ({ locationId: String(101 + i), available: a })),
});

const MATERIALS = [
  { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false },
  virtual(1, 'Wax', 'Blue', 'WaxCo', [5]),
  virtual(2, 'wax', null, 'WaxCo', [5]),
  virtual(3, 'WAX', 'blue', 'Acme', [2.5, 2.5]),
  virtual(4, 'Wax', null, 'Acme', []),
  virtual(5, 'Cotton wick', '15 cm', 'WickWorks', [0.1, 0.2]),
  virtual(6, 'Cotton wick', '15 cm', 'WickWorks', [0.3]),
  virtual(7, 'cotton wick', 'Blue', 'WickWorks', [5]),
  virtual(8, 'Jar', 'Small', 'GlassCo', [0]),
  virtual(9, 'Jar', 'small', 'GlassCo', [0]),
  virtual(10, 'Jar', 'Large', 'GlassCo', [12]),
  virtual(11, 'Label', null, 'PrintCo', [12]),
  virtual(12, 'Label', 'A', 'PrintCo', [1000000.123456]),
  virtual(13, 'Zinc clip', 'Z', 'Acme', [5]),
];

const bom = (id: number, name: string, status: string, variantId: string | null, waxQuantity: number) => ({
  bomId: `BOM-${id}`, name, status, variantId,
  rawMaterialReferences: [{ nodeId: 'VMAT-VAR-001', quantity: waxQuantity }], subAssemblyReferences: [], costFactorReferences: [],
});

const finishedGood = (variantId: string, sku: string | null, price: number | null) => ({
  variantId, productId: `8${variantId}`, inventoryItemId: `9${variantId}`, productName: `Good ${variantId}`, variantName: 'Default', sku, vendor: 'Us',
  price, cost: null, imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null, levels: [],
});

const BOMS = [
  bom(1, 'Candle', 'active', '50001', 1),
  bom(2, 'candle', 'inactive', '50002', 1),
  bom(3, 'Candle', 'active', null, 2),
  bom(10, 'Bowl 10', 'active', '50003', 2),
  bom(11, 'Bowl 2', 'inactive', null, 0.5),
  bom(12, 'bowl 2', 'active', '50004', 0.5),
  bom(20, 'Set', 'active', '50005', 1),
  bom(21, 'Set', 'inactive', null, 3),
  bom(100, 'Diffuser', 'active', '50006', 1),
  bom(101, 'Diffuser', 'active', '50007', 1),
];
const GOODS = [
  finishedGood('50001', 'C-1', 30), finishedGood('50002', 'c-1', 30), finishedGood('50003', 'BOWL-10', null), finishedGood('50004', null, 12),
  finishedGood('50005', 'SET', 30), finishedGood('50006', null, null), finishedGood('50007', 'DIF', 12),
];

const workOrder = (n: number, extra: Json) => ({
  workOrderId: `wo_${String(n).padStart(2, '0')}`, name: `Job ${n}`, status: 'draft', priority: 'normal', assigneeId: null, sourceType: 'empty',
  productionLocationId: '101', createdAt: '2026-11-01T09:00:00.000Z', updatedAt: '2026-11-02T10:00:00.000Z', items: [], tags: [], ...extra,
});

const WORK_ORDERS = [
  workOrder(1, { name: 'Pour', priority: 'high', dueDate: '2026-12-01', tags: ['rush'], assigneeId: 'asg_ana' }),
  workOrder(2, { name: 'pour', priority: 'high', dueDate: '2026-12-01', status: 'ready' }),
  workOrder(3, { name: 'Pour', priority: 'low', tags: ['rush', 'gift'], assigneeId: 'asg_zoe', sourceType: 'bom' }),
  workOrder(4, { name: 'Label', priority: 'urgent', dueDate: '2026-11-20', status: 'in_progress', productionLocationId: '102' }),
  workOrder(5, { name: 'Label', createdAt: '2026-10-01T09:00:00.000Z', updatedAt: '2026-11-03T10:00:00.000Z', status: 'completed' }),
  workOrder(6, { name: 'Box', dueDate: '2026-11-20', assigneeId: 'asg_ana', sourceType: 'bom' }),
  workOrder(7, { name: 'box', status: 'cancelled', tags: ['gift'] }),
  workOrder(8, { name: 'Wrap', priority: 'urgent', productionLocationId: '102', assigneeId: 'asg_zoe' }),
  workOrder(9, { name: 'Wrap', updatedAt: '2026-11-02T10:00:00.001Z' }),
  workOrder(10, { name: 'Ship', status: 'paused', dueDate: '2027-01-05' }),
  workOrder(11, { name: 'Ship', status: 'paused', createdAt: '2026-10-01T09:00:00.000Z' }),
];

function shop(shopId: string): Json {
  const base = datasetJson(shopId);
  return datasetJson(shopId, {
    platform: { ...(base.platform as Json), variants: [...((base.platform as Json).variants as Json[]), ...GOODS] },
    materials: MATERIALS, assemblyBills: [], boms: BOMS, workOrders: WORK_ORDERS,
  });
}

describe('cursor connections (rawMaterialConnection, bomConnection, workOrderConnection)', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const shopId = uniqueShopId('conn');
  const otherShop = uniqueShopId('conn-other');

  beforeAll(async () => {
    t = await createTestApp();
    await t.load(toDataset(shop(shopId)));
    await t.load(toDataset(datasetJson(otherShop)));
    key = await t.createKey(shopId, ['read']);
    otherKey = await t.createKey(otherShop, ['read']);
  });
  afterAll(() => t.close());

  /** Runs an operation, with the SQL statements it sent. */
  const gql = (query: string, variables: Json = {}, as = key) => t.graphql(as, query, variables);

  async function data(query: string, variables: Json = {}, as = key): Promise<Json> {
    const { body } = await gql(query, variables, as);
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  interface List {
    field: string;
    vars: string;
    idField: string;
    /** The same rows through the paged list, as one page. */
    oracle: (v: Json, as?: string) => Promise<string[]>;
  }

  const materials: List = {
    field: 'rawMaterialConnection',
    vars: '$search: String, $usageFilter: RawMaterialUsageFilter, $originFilter: RawMaterialOriginFilter, $vendorFilter: [String!], $sortBy: MaterialSort, $sortOrder: RawMaterialSortOrder',
    idField: 'variantId',
    oracle: async (v, as = key) => (await data(`query ($search: String, $usageFilter: RawMaterialUsageFilter, $originFilter: RawMaterialOriginFilter, $vendorFilter: [String!], $sortBy: MaterialSort, $sortOrder: RawMaterialSortOrder) {
        rawMaterials(search: $search, usageFilter: $usageFilter, originFilter: $originFilter, vendorFilter: $vendorFilter, sortBy: $sortBy, sortOrder: $sortOrder, pageSize: 1000) { items { variantId } } }`, v, as))
      .rawMaterials.items.map((i: Json) => i.variantId),
  };
  const boms: List = {
    field: 'bomConnection',
    vars: '$search: String, $statusFilter: BomStatusFilter, $sortBy: BomSort, $sortOrder: BomSortOrder',
    idField: 'bomId',
    oracle: async (v, as = key) => (await data(`query ($search: String, $statusFilter: BomStatusFilter, $sortBy: BomSort, $sortOrder: BomSortOrder) {
        boms(search: $search, statusFilter: $statusFilter, sortBy: $sortBy, sortOrder: $sortOrder, pageSize: 1000) { items { bomId } } }`, v, as))
      .boms.items.map((i: Json) => i.bomId),
  };
  const workOrders: List = {
    field: 'workOrderConnection',
    vars: '$q: String, $status: [WorkOrderStatus!], $tags: [String!], $locationId: String, $assignedTo: String, $sourceType: WorkOrderSourceType, $sortBy: WorkOrderSort, $sortDir: WorkOrderSortDirection',
    idField: 'workOrderId',
    oracle: async (v, as = key) => (await data(`query ($q: String, $status: [WorkOrderStatus!], $tags: [String!], $locationId: String, $assignedTo: String, $sourceType: WorkOrderSourceType, $sortBy: WorkOrderSort, $sortDir: WorkOrderSortDirection) {
        workOrders(q: $q, status: $status, tags: $tags, locationId: $locationId, assignedTo: $assignedTo, sourceType: $sourceType, sortBy: $sortBy, sortDir: $sortDir, pageSize: 100) { rows { workOrderId } } }`, v, as))
      .workOrders.rows.map((r: Json) => r.workOrderId),
  };

  const argsOf = (vars: string) => vars.split(',').map((v) => v.trim().split(':')[0]!.slice(1)).map((n) => `${n}: $${n}`).join(', ');

  function pageQuery(list: List): string {
    return `query (${list.vars}, $first: Int, $after: String, $last: Int, $before: String) {
      ${list.field}(${argsOf(list.vars)}, first: $first, after: $after, last: $last, before: $before) {
        totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { ${list.idField} } } } }`;
  }

  async function page(list: List, v: Json, as = key): Promise<Json> {
    return (await data(pageQuery(list), v, as))[list.field];
  }

  /** Every row, page by page, forward (first/after) or backward (last/before), checking pageInfo on the way. */
  async function walk(list: List, v: Json, size: number, direction: 'forward' | 'backward'): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 100; n++) {
      const p = await page(list, direction === 'forward' ? { ...v, first: size, after: cursor } : { ...v, last: size, before: cursor });
      const ids: string[] = p.edges.map((e: Json) => e.node[list.idField]);
      if (direction === 'forward') seen.push(...ids);
      else seen.unshift(...ids);
      expect(p.pageInfo.startCursor).toBe(p.edges[0]?.cursor ?? null);
      expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
      const more = direction === 'forward' ? p.pageInfo.hasNextPage : p.pageInfo.hasPreviousPage;
      const behind = direction === 'forward' ? p.pageInfo.hasPreviousPage : p.pageInfo.hasNextPage;
      expect(behind).toBe(cursor !== null);
      if (!more) return seen;
      expect(ids).toHaveLength(size);
      cursor = direction === 'forward' ? p.pageInfo.endCursor : p.pageInfo.startCursor;
    }
    throw new Error('the walk did not end');
  }

  const cases: [List, string, string[]][] = [
    [materials, 'sortOrder', ['productName', 'variantName', 'inventoryQuantity']],
    [boms, 'sortOrder', ['name', 'bomId', 'sku', 'price', 'totalCost', 'status']],
    [workOrders, 'sortDir', ['updatedAt', 'createdAt', 'dueDate', 'priority', 'name', 'status']],
  ];
  for (const [list, dirArg, sorts] of cases) {
    for (const sortBy of sorts) {
      for (const dir of ['asc', 'desc']) {
        it(`${list.field} sorted by ${sortBy} ${dir}: paging forward and backward by 3 yields the paged list's order, each row once`, async () => {
          const v = { sortBy, [dirArg]: dir };
          const expected = await list.oracle(v);
          expect(expected.length).toBeGreaterThan(8);
          expect(await walk(list, v, 3, 'forward')).toEqual(expected);
          expect(await walk(list, v, 3, 'backward')).toEqual(expected);
          expect((await page(list, { ...v, first: 1 })).totalCount).toBe(expected.length);
        });
      }
    }
  }

  it('the default order of each connection is its paged list\'s default (productName asc, name asc, updatedAt desc)', async () => {
    for (const list of [materials, boms, workOrders]) {
      const p = await page(list, { first: 100 });
      expect(p.edges.map((e: Json) => e.node[list.idField])).toEqual(await list.oracle({}));
    }
  });

  const filters: [List, Json][] = [
    [materials, { search: 'WICK' }],
    [materials, { search: 'wax', originFilter: 'virtual', sortBy: 'inventoryQuantity', sortOrder: 'desc' }],
    [materials, { usageFilter: 'used' }],
    [materials, { usageFilter: 'unused', vendorFilter: ['Acme', 'GlassCo'] }],
    [materials, { search: '%' }],
    [boms, { search: 'bowl' }],
    [boms, { statusFilter: 'inactive', sortBy: 'price' }],
    [boms, { search: 'c-1', statusFilter: 'active' }],
    [workOrders, { q: 'pour' }],
    [workOrders, { q: 'zoe' }],
    [workOrders, { status: ['paused', 'ready'], sortBy: 'name' }],
    [workOrders, { tags: ['gift'] }],
    [workOrders, { locationId: '102' }],
    [workOrders, { assignedTo: 'asg_ana', sourceType: 'bom' }],
  ];
  for (const [list, v] of filters) {
    it(`${list.field} with ${JSON.stringify(v)} holds exactly the paged list's rows, paged by 2 the same way`, async () => {
      const expected = await list.oracle(v);
      expect((await page(list, { ...v, first: 100 })).totalCount).toBe(expected.length);
      expect(await walk(list, v, 2, 'forward')).toEqual(expected);
      expect(await walk(list, v, 2, 'backward')).toEqual(expected);
    });
  }

  it('an empty result is an empty page with no cursors and no neighbours', async () => {
    const p = await page(materials, { search: 'no such material', first: 5 });
    expect(p).toEqual({ totalCount: 0, pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, edges: [] });
  });

  it('after and before together bound the window: the rows strictly between the two cursors', async () => {
    const all = (await page(boms, { first: 100 })).edges;
    const p = await page(boms, { first: 100, after: all[1].cursor, before: all[6].cursor });
    expect(p.edges.map((e: Json) => e.node.bomId)).toEqual(all.slice(2, 6).map((e: Json) => e.node.bomId));
    expect(p.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const nodes = await data(`query ($a: String, $b: String) { bomConnection(after: $a, before: $b) { nodes { bomId } } }`, { a: all[1].cursor, b: all[6].cursor });
    expect(nodes.bomConnection.nodes).toEqual(p.edges.map((e: Json) => e.node));
  });

  it('a cursor positions by its sort keys, not by an offset: a cursor read under a filter continues the unfiltered list from its row', async () => {
    const filtered = (await page(workOrders, { sortBy: 'name', q: 'Label', first: 1 })).edges;
    const next = await page(workOrders, { sortBy: 'name', first: 100, after: filtered[0].cursor });
    const all = await workOrders.oracle({ sortBy: 'name' });
    expect(next.edges.map((e: Json) => e.node.workOrderId)).toEqual(all.slice(all.indexOf(filtered[0].node.workOrderId) + 1));
  });

  it('a BOM cursor stays exact when BOMs are added between two pages (their name ranks shift): nothing skipped or repeated', async () => {
    const writeShop = uniqueShopId('conn-write');
    await t.load(toDataset(shop(writeShop)));
    const writeKey = await t.createKey(writeShop, ['read', 'write']);
    const first = await page(boms, { first: 4 }, writeKey);
    for (const name of ['Aardvark', 'Candle', 'Bowl 3']) {
      const { body } = await gql(`mutation ($n: String!) { createBom(input: { name: $n }) { bomSave { bom { bomId } } userErrors { code message } } }`, { n: name }, writeKey);
      expect(body.errors).toBeUndefined();
      expect(body.data.createBom.userErrors).toEqual([]);
    }
    const rest: string[] = [];
    let after = first.pageInfo.endCursor;
    for (;;) {
      const p = await page(boms, { first: 4, after }, writeKey);
      rest.push(...p.edges.map((e: Json) => e.node.bomId));
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    const all = await boms.oracle({}, writeKey);
    const cursorRow = first.edges.at(-1).node.bomId;
    expect(rest).toEqual(all.slice(all.indexOf(cursorRow) + 1));
    expect(rest.length).toBeGreaterThan(3);
  }, 30_000);

  const limits: [List, Json, string, string][] = [
    [materials, { first: 1001 }, 'first', 'first: must be between 1 and 1000'],
    [materials, { first: 0 }, 'first', 'first: must be between 1 and 1000'],
    [boms, { last: 1001 }, 'last', 'last: must be between 1 and 1000'],
    [workOrders, { first: 101 }, 'first', 'first: must be between 1 and 100'],
    [workOrders, { first: 5, last: 5 }, 'last', 'last: cannot be combined with first'],
    [materials, { after: 'not-a-cursor' }, 'after', 'after: is not a cursor of this list'],
  ];
  for (const [list, v, field, message] of limits) {
    it(`${list.field} refuses ${JSON.stringify(v)} with INVALID_INPUT naming ${field} (as REST refuses a page size out of range)`, async () => {
      const { body } = await gql(pageQuery(list), v);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
      expect(body.errors[0].message).toContain(message);
    });
  }

  it('a cursor read with another sort or direction is refused (INVALID_INPUT on after), not misread', async () => {
    const byName = await page(materials, { sortBy: 'productName', first: 2 });
    for (const v of [{ sortBy: 'inventoryQuantity' }, { sortBy: 'productName', sortOrder: 'desc' }]) {
      const { body } = await gql(pageQuery(materials), { ...v, first: 2, after: byName.pageInfo.endCursor });
      expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
      expect(body.errors[0].message).toMatch(/^after: belongs to another sort order/);
    }
    const { body } = await gql(pageQuery(boms), { first: 2, after: byName.pageInfo.endCursor });
    expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
  });

  it('a key sees only its own shop: the other shop\'s connections hold none of these rows, even through this shop\'s cursors', async () => {
    const mine = await page(materials, { first: 3 });
    const theirs = await page(materials, { first: 100 }, otherKey);
    expect(theirs.edges.map((e: Json) => e.node.variantId).sort()).toEqual(['44001', 'VMAT-VAR-0001']);
    expect(theirs.totalCount).toBe(2);
    const after = await page(materials, { first: 100, after: mine.pageInfo.endCursor }, otherKey);
    for (const e of after.edges) expect(['44001', 'VMAT-VAR-0001']).toContain(e.node.variantId);
    expect((await page(workOrders, { first: 100 }, otherKey)).totalCount).toBe(0);
    expect((await page(boms, { first: 100 }, otherKey)).edges.map((e: Json) => e.node.bomId)).toEqual(['BOM-1001']);
  });

  it('a node of a page is the whole type: materials carry their fields, BOMs their lines and costs, work orders their header', async () => {
    const d = await data(`{
      rawMaterialConnection(search: "Label", sortBy: variantName, first: 1) { edges { node { variantId productName variantName inventoryQuantity vendor } } }
      bomConnection(sortBy: bomId, first: 1) { edges { node { bomId name totalCost price sku rawMaterialLines { nodeId quantity } } } }
      workOrderConnection(sortBy: priority, first: 1) { edges { node { workOrderId shortId name priority assigneeName productionLocationName } } } }`);
    expect(d.rawMaterialConnection.edges[0].node).toEqual({ variantId: 'VMAT-VAR-012', productName: 'Label', variantName: 'A', inventoryQuantity: '1000000.123456', vendor: 'PrintCo' });
    expect(d.bomConnection.edges[0].node).toEqual({ bomId: 'BOM-1', name: 'Candle', totalCost: '0.5', price: '30', sku: 'C-1', rawMaterialLines: [{ nodeId: 'VMAT-VAR-001', quantity: '1' }] });
    expect(d.workOrderConnection.edges[0].node).toMatchObject({ workOrderId: 'wo_04', name: 'Label', priority: 'urgent', productionLocationName: 'Downtown Store' });
  });

  it('a page costs the same SQL statements whatever its size or position (one statement per connection, plus location names for work orders)', async () => {
    const query = `query ($first: Int, $after: String) {
      rawMaterialConnection(first: $first, after: $after) { totalCount edges { cursor node { variantId inventoryQuantity } } }
      bomConnection(first: $first, after: null) { totalCount edges { node { bomId totalCost rawMaterialLines { nodeId } } } }
      workOrderConnection(first: $first) { totalCount edges { node { workOrderId assigneeName } } } }`;
    const small = await gql(query, { first: 1 });
    const large = await gql(query, { first: 100 });
    const deep = await gql(query, { first: 2, after: (await page(materials, { first: 9 })).pageInfo.endCursor });
    expect(small.body.errors).toBeUndefined();
    expect(large.body.data.bomConnection.edges.length).toBe(BOMS.length);
    expect(small.statements).toBeGreaterThan(0);
    expect(large.statements).toBe(small.statements);
    expect(deep.statements).toBe(small.statements);
    // Beyond what any request costs (the key check): one statement per connection, and the location names.
    const overhead = (await gql('{ __typename }')).statements;
    expect(small.statements - overhead).toBe(4);
  });
});
