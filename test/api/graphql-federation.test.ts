import { composeServices } from '@apollo/composition';
import { ApolloGateway, LocalGraphQLDataSource, type GraphQLDataSource } from '@apollo/gateway';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.ts';
import { virtualJson } from '../helpers/bom-context.ts';
import { datasetJson, toDataset, workOrderJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { orderDataset } from '../helpers/order-dataset.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { shippingSchema, shippingTypeDefs } from '../helpers/shipping-subgraph.ts';

let t: TestApp;

/** Thirty more virtual materials (for statement counts over many representations). */
const extraMaterials = Array.from({ length: 30 }, (_, i) => virtualJson(`N${i}`, `Material ${i}`, [{ locationId: '101', available: i }]));

/** POSTs an operation with its SQL statement count. */
const gql = (key: string, query: string, variables: Record<string, unknown> = {}) => t.graphql(key, query, variables);

const ENTITIES = `query($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on RawMaterial { variantId productName inventoryQuantity }
    ... on Bom { bomId name totalCost }
    ... on AssemblyBill { assemblyId name unitCost }
    ... on WorkOrder { workOrderId name status }
    ... on Location { locationId name }
    ... on Order { orderId name lineItems { title quantity } }
  }
}`;

const sdlOf = async (key: string): Promise<string> => (await gql(key, '{ _service { sdl } }')).body.data._service.sdl;

describe('Federation 2 subgraph', () => {
  const shop = uniqueShopId('fed');
  const other = uniqueShopId('fed-other');
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.load(toDataset(datasetJson(shop, {
      materials: [...(datasetJson(shop).materials as object[]), ...extraMaterials],
      workOrders: [workOrderJson('wo_1', 'draft', 'asg_ana'), workOrderJson('wo_2', 'in_progress', null)],
    })));
    await t.load(toDataset(datasetJson(other, {
      platform: { locations: [{ id: '201', name: 'Elsewhere' }], variants: [], orders: [] },
      materials: [], costFactors: [], assemblyBills: [], boms: [], workOrders: [],
    })));
    key = await t.createKey(shop, ['read']);
    otherKey = await t.createKey(other, ['read']);
  });
  afterAll(() => t.close());

  it('declares @key entities for materials, BOMs, assembly bills, work orders, locations and orders; Location and the platform fields of Order are @shareable', async () => {
    const sdl = await sdlOf(key);
    for (const [type, field] of [['RawMaterial', 'variantId'], ['Bom', 'bomId'], ['AssemblyBill', 'assemblyId'], ['WorkOrder', 'workOrderId'], ['Location', 'locationId'], ['Order', 'orderId']]) {
      expect(sdl).toMatch(new RegExp(`type ${type}\\b[^{]*@key\\(fields: "${field}"\\)`));
    }
    expect(sdl).toMatch(/type Location\b[^{]*@shareable/);
    expect(sdl).toMatch(/\n\s+name: String! @shareable/);
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.6"');
  });

  it('_entities resolves a representation of every entity type by its key, with the fields of the single-item queries', async () => {
    const { body } = await gql(key, ENTITIES, { representations: [
      { __typename: 'RawMaterial', variantId: 'VMAT-VAR-0001' },
      { __typename: 'Bom', bomId: 'BOM-1001' },
      { __typename: 'AssemblyBill', assemblyId: 'ASM-1' },
      { __typename: 'WorkOrder', workOrderId: 'wo_2' },
      { __typename: 'Location', locationId: '102' },
      { __typename: 'Order', orderId: '5001' },
    ] });
    expect(body.errors).toBeUndefined();
    const direct = (await gql(key, `{ rawMaterial(variantId: "VMAT-VAR-0001") { inventoryQuantity } bom(bomId: "BOM-1001") { totalCost }
      assemblyBill(assemblyId: "ASM-1") { unitCost } }`)).body.data;
    expect(body.data._entities).toEqual([
      { __typename: 'RawMaterial', variantId: 'VMAT-VAR-0001', productName: 'Cotton wick', inventoryQuantity: direct.rawMaterial.inventoryQuantity },
      { __typename: 'Bom', bomId: 'BOM-1001', name: 'Large candle', totalCost: direct.bom.totalCost },
      { __typename: 'AssemblyBill', assemblyId: 'ASM-1', name: 'Wick assembly', unitCost: direct.assemblyBill.unitCost },
      { __typename: 'WorkOrder', workOrderId: 'wo_2', name: 'Work order wo_2', status: 'in_progress' },
      { __typename: 'Location', locationId: '102', name: 'Downtown Store' },
      { __typename: 'Order', orderId: '5001', name: '#1001', lineItems: [{ title: 'Large candle', quantity: '2' }] },
    ]);
  });

  it('_entities resolves unknown ids and another shop\'s ids to null, never to the other shop\'s data', async () => {
    const representations = [
      { __typename: 'RawMaterial', variantId: 'VMAT-VAR-0001' }, { __typename: 'Bom', bomId: 'BOM-1001' },
      { __typename: 'AssemblyBill', assemblyId: 'ASM-1' }, { __typename: 'WorkOrder', workOrderId: 'wo_1' },
      { __typename: 'Location', locationId: '101' }, { __typename: 'Order', orderId: '5001' },
    ];
    const { body } = await gql(otherKey, ENTITIES, { representations });
    expect(body.errors).toBeUndefined();
    expect(body.data._entities).toEqual([null, null, null, null, null, null]);
    const unknown = await gql(key, ENTITIES, { representations: [{ __typename: 'RawMaterial', variantId: 'VMAT-VAR-nope' }, { __typename: 'Order', orderId: 'not-an-id' }] });
    expect(unknown.body.data._entities).toEqual([null, null]);
  });

  it('a representation the resolver cannot use (not an object, unknown __typename, Query, no key, a key of the wrong type) is INVALID_INPUT naming representations[i], not INTERNAL', async () => {
    const long = `Nope${'x'.repeat(3000)}`;
    const representations = [
      { __typename: 'Bom', bomId: 'BOM-1001' }, 'x', { __typename: long, id: '1' }, { __typename: 'Query' }, { __typename: 'Bom' },
      { __typename: 'Bom', bomId: 5 }, { id: '1' }, { __typename: 'WorkOrder', workOrderId: 1.5 }, { __typename: 'RawMaterial', variantId: 'v'.repeat(256) },
    ];
    const { status, body } = await gql(key, ENTITIES, { representations });
    expect(status).toBeLessThan(500);
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
    const entities = 'AssemblyBill, Bom, Location, Order, RawMaterial, WorkOrder';
    expect(body.errors[0].extensions.errors).toEqual([
      { field: 'representations[1]', message: `must be an object with __typename and the entity's key field (entities: ${entities})` },
      { field: 'representations[2]', message: `__typename "Nope${'x'.repeat(36)}"… (3004 characters) is not an entity of this service; entities: ${entities}` },
      { field: 'representations[3]', message: `__typename "Query" is not an entity of this service; entities: ${entities}` },
      { field: 'representations[4]', message: 'a Bom representation needs its key bomId (a string)' },
      { field: 'representations[5]', message: 'bomId must be a string' },
      { field: 'representations[6]', message: `needs __typename, the name of an entity: ${entities}` },
      { field: 'representations[7]', message: 'workOrderId must be a string or an integer' },
      { field: 'representations[8]', message: 'variantId must be at most 255 characters, got 256' },
    ]);
    // The client's long string is cut, never echoed whole.
    expect(JSON.stringify(body)).not.toContain('x'.repeat(100));
    // An ID key takes an integer, as GraphQL's ID does.
    const byNumber = await gql(key, ENTITIES, { representations: [{ __typename: 'WorkOrder', workOrderId: 12 }] });
    expect(byNumber.body).toEqual({ data: { _entities: [null] } });
  });

  it('a refused representation is logged at info without the client\'s long string, never at error with a stack', async () => {
    const lines: { level: number; msg: string; raw: string }[] = [];
    const stream = new Writable({ write(chunk, _encoding, done) {
      for (const raw of String(chunk).split('\n').filter(Boolean)) lines.push({ ...JSON.parse(raw), raw });
      done();
    } });
    const app = await buildApp({ config: t.config, orm: t.orm, logger: { level: 'info', stream } as never, exposeQueryCount: true });
    try {
      const long = `Nope${'y'.repeat(5000)}`;
      for (const rep of [{ __typename: long }, { __typename: 'Query' }, { __typename: 'Bom' }, 'x']) {
        const res = await app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key}` }, payload: { query: ENTITIES, variables: { representations: [rep] } } });
        expect(res.json().errors[0].extensions.code).toBe('INVALID_INPUT');
      }
    } finally {
      await app.close();
    }
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.raw.includes('y'.repeat(100)))).toEqual([]);
  });

  it('N representations of materials, BOMs, assembly bills, locations or orders cost the same SQL statements as one', async () => {
    const materials = extraMaterials.map((m) => ({ __typename: 'RawMaterial', variantId: m.variantId }));
    const cases: [string, Record<string, unknown>[]][] = [
      ['RawMaterial', materials],
      ['Bom + AssemblyBill', [{ __typename: 'Bom', bomId: 'BOM-1001' }, { __typename: 'AssemblyBill', assemblyId: 'ASM-1' }]],
      ['Location', ['101', '102', '103'].map((locationId) => ({ __typename: 'Location', locationId }))],
      // An order the mirror lacks costs one lookup of the shop's store connection (order-history.ts), whatever the number asked for: one of each side has one.
      ['Order', ['404', '5001', '5001', '405'].map((orderId) => ({ __typename: 'Order', orderId }))],
    ];
    await gql(key, ENTITIES, { representations: materials.slice(0, 1) }); // the first run of an operation is not JIT-compiled yet
    for (const [label, many] of cases) {
      const one = await gql(key, ENTITIES, { representations: many.slice(0, 1) });
      const all = await gql(key, ENTITIES, { representations: many });
      expect(all.body.errors, label).toBeUndefined();
      expect(all.body.data._entities.length).toBe(many.length);
      console.info(`_entities ${label}: 1 → ${one.statements} statements, ${many.length} → ${all.statements}`);
      expect(all.statements, label).toBe(one.statements);
    }
    const mixed = await gql(key, ENTITIES, { representations: [...materials, ...cases.slice(1).flatMap(([, reps]) => reps)] });
    expect(mixed.body.data._entities.filter((e: unknown) => e !== null)).toHaveLength(30 + 2 + 3 + 2);
    console.info(`_entities of every type at once (${30 + 2 + 3 + 3} representations): ${mixed.statements} statements`);
    expect(mixed.statements).toBeLessThanOrEqual(10);
  });
});

describe('composition with another subgraph and a query through a gateway', () => {
  const shop = uniqueShopId('fed-gw');
  let key: string;
  let gateway: ApolloGateway;

  /** The bomcore subgraph as the gateway sees it: each fetch is a POST /graphql on the app, with the shop's key. */
  class BomcoreDataSource implements GraphQLDataSource {
    fetches: string[] = [];
    async process({ request }: Parameters<GraphQLDataSource['process']>[0]) {
      this.fetches.push(request.query ?? '');
      const res = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: request.query, variables: request.variables ?? {} } });
      return res.json();
    }
  }
  const bomcore = new BomcoreDataSource();

  beforeAll(async () => {
    t = await createTestApp();
    await t.load(toDataset(orderDataset(shop)));
    key = await t.createKey(shop, ['read']);
  });
  afterAll(async () => {
    await gateway?.stop();
    await t.close();
  });

  it('this subgraph composes with a subgraph that extends Order and Location (Location shared, no INVALID_FIELD_SHARING)', async () => {
    const result = composeServices([
      { name: 'bomcore', url: 'http://bomcore.local/graphql', typeDefs: parse(await sdlOf(key)) },
      { name: 'shipping', url: 'http://shipping.local/graphql', typeDefs: shippingTypeDefs },
    ]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.supergraphSdl).toContain('dockDoors');
  });

  it('schema/subgraph.graphql, checked in, is the SDL this subgraph serves, and composes as it is', async () => {
    const file = readFileSync(new URL('../../schema/subgraph.graphql', import.meta.url), 'utf8');
    expect(`${await sdlOf(key)}\n`).toBe(file);
    const result = composeServices([
      { name: 'bomcore', url: 'http://bomcore.local/graphql', typeDefs: parse(file) },
      { name: 'shipping', url: 'http://shipping.local/graphql', typeDefs: shippingTypeDefs },
    ]);
    expect(result.errors ?? []).toEqual([]);
    // The supergraph joins this subgraph's entities and links with the other subgraph's fields.
    expect(result.supergraphSdl).toMatch(/type Bom\b[^{]*@join__type\(graph: BOMCORE, key: "bomId"\)/);
    expect(result.supergraphSdl).toContain('workOrders(');
  });

  it('a query that starts in the other subgraph fetches orders and locations from this one through _entities, and the other way round', async () => {
    const composed = composeServices([
      { name: 'bomcore', url: 'http://bomcore.local/graphql', typeDefs: parse(await sdlOf(key)) },
      { name: 'shipping', url: 'http://shipping.local/graphql', typeDefs: shippingTypeDefs },
    ]);
    const local = new LocalGraphQLDataSource(shippingSchema());
    gateway = new ApolloGateway({
      supergraphSdl: composed.supergraphSdl!,
      buildService: ({ name }) => (name === 'bomcore' ? bomcore : local),
    });
    const { executor, schema } = await gateway.load();
    const run = async (query: string) => {
      const document = parse(query);
      // The executor takes Apollo Server's request context; these are the parts it reads.
      const result = await executor({
        request: { query }, document, schema, queryHash: query, operationName: null, context: {}, cache: undefined as never,
        logger: console, metrics: {}, overallCachePolicy: undefined as never, contextValue: {}, operation: document.definitions[0] as never,
      } as never);
      return result;
    };

    const fromShipping = await run(`{ shipments { shipmentId carrier
      order { orderId trackingNumbers lineItems { title quantity } breakdown { totalMaterials { variantId totalQuantity } } }
      from { locationId dockDoors } } }`);
    expect(fromShipping.errors).toBeUndefined();
    const direct = (await gql(key, '{ orderBomBreakdown(id: "5001") { totalMaterials { variantId totalQuantity } } }')).body.data.orderBomBreakdown;
    expect((fromShipping.data as any).shipments[0]).toEqual({
      shipmentId: 'S-1', carrier: 'UPS',
      order: { orderId: '5001', trackingNumbers: ['1Z-5001'], lineItems: [
        { title: 'Large candle', quantity: '2' }, { title: 'Small candle', quantity: '3' }, { title: 'Gift card', quantity: '1' },
      ], breakdown: direct },
      from: { locationId: '101', dockDoors: 2 },
    });
    expect(bomcore.fetches.some((q) => q.includes('_entities'))).toBe(true);

    const fromBomcore = await run('{ locations { locationId name dockDoors } order(id: "5003") { orderId trackingNumbers lineItems { title } } }');
    expect(fromBomcore.errors).toBeUndefined();
    expect(fromBomcore.data).toEqual({
      locations: [{ locationId: '101', name: 'Main', dockDoors: 2 }, { locationId: '102', name: 'Store', dockDoors: 3 }],
      order: { orderId: '5003', trackingNumbers: ['1Z-5003'], lineItems: [{ title: 'Small candle' }] },
    });
  });
});
