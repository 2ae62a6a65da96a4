import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { ListParameter } from '../../schema-helpers.ts';
import { under, type DataOverrides } from '../../data-overrides.ts';
import { LocationIdParam } from './schemas.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../../src/kernel/limits.ts';

const FIELDS = new URL('./breakdown-fields.graphql', import.meta.url);

const RULES = `Each order line whose product has a BOM (active or inactive) is expanded to leaf raw materials:
effective need per unit (waste included, nested assembly bills multiplied through, non-essential materials
included — the warehouse packs them too) × the ordered quantity. Pre-assembled shelf stock is not
subtracted: this is the recipe, not a stock allocation. Always computed from the order's current lines.`;

/** One breakdown, a component of both routes. */
const BREAKDOWN: DataOverrides = {
  '': { title: 'OrderBomBreakdown', nullAs: 'anyOf' },
  boms: { title: 'OrderBomBreakdownLine' },
  'boms.materials': { title: 'OrderBomBreakdownMaterial' },
  totalMaterials: { title: 'OrderBomBreakdownTotalMaterial' },
  otherItems: { title: 'OrderBomBreakdownOtherItem' },
};

export const orderBreakdownRoute = defineRoute({
  method: 'GET',
  url: '/order-bom-breakdown/:id',
  scope: 'read',
  operationId: 'getOrderBomBreakdown',
  summary: 'Order BOM breakdown',
  description: `${RULES}\n\nThe id is a bare numeric order id, or the global id gid://<platform>/Order/<digits> percent-encoded. An id that resolves to no order of the shop (malformed ones included) is 404. An order without BOM products is 200 with boms: [].`,
  tag: 'order-bom-breakdown',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id }) }),
  querystring: Type.Object({ locationId: Type.Optional(LocationIdParam) }, { additionalProperties: false }),
  dataOverrides: BREAKDOWN,
  operation: [new URL('./single.graphql', import.meta.url), FIELDS],
  variables: ({ params, query }) => ({ id: params.id, locationId: query.locationId ?? null }),
  extraProblems: [404],
});

export const orderBreakdownBatchRoute = defineRoute({
  method: 'GET',
  url: '/order-bom-breakdown',
  scope: 'read',
  operationId: 'listOrderBomBreakdowns',
  summary: 'Order BOM breakdowns (batch)',
  description: `${RULES}\n\n\`ids\` is repeatable and/or comma-separated, bare or global ids (no encoding needed); 1–50 ids after splitting, duplicates included, more is 400. Partial success: ids that resolve to no order are listed in notFound as sent; items follow the request order, one per order. One call costs one rate-limit token whatever the number of orders. An unknown locationId is 404.`,
  tag: 'order-bom-breakdown',
  querystring: Type.Object({
    ids: ListParameter(Type.String({ maxLength: STRING_LIMITS.id }), {
      minItems: 1, maxItems: LIST_LIMITS.orderIds, description: `Order ids, bare or global (no encoding needed), each at most ${STRING_LIMITS.id} characters.`,
    }),
    locationId: Type.Optional(LocationIdParam),
  }, { additionalProperties: false }),
  dataOverrides: under('items', BREAKDOWN),
  operation: [new URL('./batch.graphql', import.meta.url), FIELDS],
  variables: ({ query }) => ({ ids: query.ids, locationId: query.locationId ?? null }),
  extraProblems: [404],
});
