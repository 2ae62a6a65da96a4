// The benchmark scenarios: what each sends to bomcore's REST facade, to /graphql (the identical
// stored operation), to the hand-written floor and to PostGraphile.
import { graphqlTwin } from './graphql-twin.ts';
import type { BuildRunLoop, HttpRequestSpec } from './runner-types.ts';
import type { Shop } from './shop.ts';

export type Twin = 'graphql' | 'floor' | 'postgraphile';

export interface Scenario {
  id: string;
  title: string;
  kind: 'read' | 'write';
  /** A paged list (the growth target compares it at 100k and 20k). */
  paged: boolean;
  rest: HttpRequestSpec;
  twins: Partial<Record<Twin, HttpRequestSpec>>;
  buildRuns?: BuildRunLoop;
  /** A conditional read: the harness sends If-None-Match with the tag of a first 200, so every answer is a 304. */
  conditional?: boolean;
}

export const SCENARIO_IDS = [
  'locations', 'materials-list', 'materials-by-quantity', 'bom-deep', 'buildable', 'buildable-304', 'bom-list', 'breakdown-50', 'work-order-list', 'work-order-read', 'material-plan',
  'planning', 'inventory-patch', 'build-run',
] as const;

/**
 * PostGraphile's equivalent of the deep BOM read (auto-generated schema; relations from the smart
 * tags in bench/postgraphile-server.ts): the BOM, its finished-good variant and its recipe lines,
 * each with its material or cost factor, and each sub-assembly line's bill with its lines, nested
 * to the BOM's depth. It computes no costs (PostGraphile has none to give).
 */
export function postgraphileDeepBomQuery(depth: number): string {
  const lines = (ownerType: string, level: number): string =>
    `lines(condition: { ownerType: "${ownerType}" }) { nodes { ...Line${
      level < depth ? ` assembly { assemblyId name onlyConsumePreassembled ${lines('sub_assembly', level + 1)} }` : ''} } }`;
  return `fragment Line on RecipeLine {
  lineType nodeId quantity wastePercentage
  material { productName variantName sku unit unitCost origin isNonEssentialMaterial }
  costFactor { name kind unit unitCost }
}
query DeepBom($shopId: String!, $bomId: String!) {
  bomByShopIdAndBomId(shopId: $shopId, bomId: $bomId) {
    bomId name status variantId variant { productId sku price }
    ${lines('bom', 0)}
  }
}`;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** The planning scenario's operation: every row of the plan, pegging included. */
const PLANNING_QUERY = `query Plan($asOf: Date) { planning(asOf: $asOf) { asOf
  buySuggestions { variantId locationId quantity net needBy orderBy late essential }
  makeSuggestions { itemType itemId variantId locationId quantity needBy startBy late demands { sourceType sourceId quantity needBy } otherDemandCount }
  shortages { variantId locationId required onHand allocated net needBy essential demands { sourceType sourceId quantity needBy } otherDemandCount }
  unlocated { itemId orderId quantity } } }`;

export function buildScenarios(shop: Shop): Scenario[] {
  const auth = { authorization: `Bearer ${shop.key}` };
  const { picks } = shop;
  const get = (path: string): HttpRequestSpec => ({ method: 'GET', path, headers: auth });
  const post = (path: string, body: unknown, headers: Record<string, string> = auth): HttpRequestSpec =>
    ({ method: 'POST', path, headers: { ...headers, ...JSON_TYPE }, bodies: [JSON.stringify(body)] });
  const read = (id: string, title: string, path: string, extra: Partial<Scenario> = {}): Scenario => ({
    id, title, kind: 'read', paged: false, rest: get(path), ...extra,
    twins: { graphql: post('/graphql', graphqlTwin('GET', path)), ...extra.twins },
  });
  const materials = '/api/v1/raw-materials?search=a&sortBy=productName&sortOrder=asc&pageSize=50';
  // A selective search (a SKU fragment: generated SKUs end in the material's number, so "-123"
  // names 111 materials at 20k and at 100k): it walks the trigram index, so it grows with its
  // matches, not with the shop.
  const search = '/api/v1/raw-materials?search=-123&sortBy=productName&sortOrder=asc&pageSize=50';
  const byQuantity = '/api/v1/raw-materials?sortBy=inventoryQuantity&sortOrder=desc&pageSize=50';
  const bom = `/api/v1/bills-of-materials/${picks.deepBom.bomId}`;
  const wo = `/api/v1/work-orders/${picks.workOrder}`;
  const { variantId, locationId } = picks.inventory;
  const delta = (d: number) => JSON.stringify({ updates: [{ locationId, delta: d }] });
  return [
    // The reference of the targets: the cheapest authenticated read (key lookup, facade, envelope).
    read('locations', `Locations (all ${shop.size.locations}): the reference`, '/api/v1/locations'),
    read('materials-list', 'Materials list, search + sort, page of 50', materials, { paged: true, twins: { floor: get(materials) } }),
    read('materials-search', 'Materials search for a SKU fragment (few matches), page of 50', search, { paged: true, twins: { floor: get(search) } }),
    read('materials-by-quantity', 'Materials list sorted by inventoryQuantity, page of 50', byQuantity, { paged: true, twins: { floor: get(byQuantity) } }),
    read('bom-deep', `Deep BOM read (${picks.deepBom.bomId}: ${picks.deepBom.depth} levels, ${picks.deepBom.assemblies} assemblies)`, bom, {
      twins: {
        floor: get(bom),
        postgraphile: post('/graphql', { query: postgraphileDeepBomQuery(picks.deepBom.depth), variables: { shopId: picks.shopId, bomId: picks.deepBom.bomId } }, {}),
      },
    }),
    read('buildable', `Buildable, all ${shop.size.locations} locations (${picks.deepBom.bomId})`, `${bom}/buildable`),
    { id: 'buildable-304', title: 'Buildable again with If-None-Match: 304', kind: 'read', paged: false, conditional: true, twins: {},
      rest: { ...get(`${bom}/buildable`), expectStatus: 304 } },
    read('bom-list', 'BOM list with stats, page of 50', '/api/v1/bills-of-materials?pageSize=50', { paged: true }),
    read('breakdown-50', `Order breakdown batch of ${picks.orderIds.length}`, `/api/v1/order-bom-breakdown?ids=${picks.orderIds.join(',')}`),
    read('work-order-list', 'Work-order list with facets, page of 50', '/api/v1/work-orders?pageSize=50', { paged: true }),
    read('work-order-read', 'Whole work-order read', wo),
    read('material-plan', 'Work-order material plan', `${wo}/material-plan`),
    // GraphQL only (planning has no REST route): the whole shop's plan, one repeatable-read snapshot.
    { id: 'planning', title: `The shop's plan (GraphQL planning, all ${shop.size.locations} locations)`, kind: 'read', paged: false, twins: {},
      rest: post('/graphql', { query: PLANNING_QUERY, variables: { asOf: '2026-11-12' } }) },
    {
      id: 'inventory-patch', title: 'Inventory batch PATCH (virtual material, ±0.5)', kind: 'write', paged: false, twins: {},
      rest: {
        method: 'PATCH', path: `/api/v1/raw-materials/${encodeURIComponent(variantId)}/inventory`, headers: { ...auth, ...JSON_TYPE },
        bodies: [delta(0.5), delta(-0.5)],
      },
    },
    {
      id: 'build-run', title: `Start a build run (new buildRunId and token each time; one work order per connection, ${picks.buildRunWorkOrders.length} available)`, kind: 'write', paged: false, twins: {},
      rest: { method: 'PATCH', path: `/api/v1/work-orders/${picks.buildRunWorkOrders[0]!.workOrderId}/build-runs`, headers: { ...auth, ...JSON_TYPE } },
      buildRuns: { key: shop.key, workOrders: picks.buildRunWorkOrders },
    },
  ];
}

/** Puts the PATCHed level back where the dataset had it (in-flight ± requests cut at the window's end). */
export function restoreInventoryBody(shop: Shop): string {
  return JSON.stringify({ updates: [{ locationId: shop.picks.inventory.locationId, absolute: shop.picks.inventory.available }] });
}
