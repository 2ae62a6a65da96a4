import type {
  BreakdownBom, BreakdownMaterial, BreakdownOtherItem, BreakdownTotal, OrderBreakdown,
} from '../../../src/modules/orders/breakdown.service.ts';
import { orderBreakdown, orderBreakdowns } from '../../../src/modules/orders/breakdown.service.ts';
import { toDecimalString } from '../../../src/kernel/decimals.ts';
import { builder } from '../../builder.ts';

// Figures leave as their written form (rounded to 6 places from the exact value, as the Decimal scalar
// would from the full text): the scalar then finds them already written and does not read them again.

type MaterialIdentity = Omit<BreakdownMaterial, 'quantity'>;

/** The identity of a material, shared by the per-line and the total lists. */
export const OrderMaterialRef = builder.interfaceRef<MaterialIdentity>('OrderMaterial').implement({
  fields: (t) => ({
    productId: t.exposeString('productId', { nullable: true }),
    variantId: t.exposeString('variantId'),
    sku: t.exposeString('sku', { nullable: true }),
    title: t.exposeString('title'),
    productName: t.exposeString('productName', { nullable: true }),
    variantName: t.exposeString('variantName', { nullable: true }),
    specifications: t.exposeString('specifications', { nullable: true }),
    notes: t.exposeString('notes', { nullable: true, description: "The order's note (what the merchant or customer wrote on the order), carried beside each material so the packer reads it with what to pack; null when the order has none." }),
  }),
});

const BreakdownMaterialRef = builder.objectRef<BreakdownMaterial>('OrderBomMaterial').implement({
  description: 'A leaf raw material of one BOM line: quantity already multiplied by the ordered quantity, waste included.',
  interfaces: [OrderMaterialRef],
  isTypeOf: (value) => 'quantity' in (value as object),
  fields: (t) => ({
    quantity: t.field({
      type: 'Decimal',
      description: 'Per this BOM line: effective need per unit (waste included, nested assemblies multiplied) × orderQuantity.',
      resolve: (m) => toDecimalString(m.quantity),
    }),
  }),
});

export const BreakdownBomRef = builder.objectRef<BreakdownBom>('OrderBomLine').implement({
  description: 'One order line whose product has a BOM, expanded to leaf raw materials.',
  fields: (t) => ({
    bomId: t.exposeString('bomId'),
    bomName: t.exposeString('bomName'),
    bomImageUrl: t.exposeString('bomImageUrl', { nullable: true }),
    bomProductId: t.exposeString('bomProductId', { nullable: true }),
    bomVariantId: t.exposeString('bomVariantId'),
    bomSku: t.exposeString('bomSku', { nullable: true }),
    orderQuantity: t.field({ type: 'Decimal', description: 'Quantity of the order line.', resolve: (b) => toDecimalString(b.orderQuantity) }),
    materials: t.field({ type: [BreakdownMaterialRef], description: 'Leaf raw materials of the line; assembly bills are expanded.', resolve: (b) => b.materials }),
  }),
});

const BreakdownTotalRef = builder.objectRef<BreakdownTotal>('OrderTotalMaterial').implement({
  description: 'A raw material summed over every BOM line of the order (de-duplicated by variant).',
  interfaces: [OrderMaterialRef],
  isTypeOf: (value) => 'totalQuantity' in (value as object),
  fields: (t) => ({
    totalQuantity: t.field({ type: 'Decimal', description: 'Sum over every BOM line of the order.', resolve: (m) => toDecimalString(m.totalQuantity) }),
    imageUrl: t.exposeString('imageUrl', { nullable: true }),
    isVirtual: t.exposeBoolean('isVirtual'),
    unitCost: t.field({ type: 'Decimal', nullable: true, resolve: (m) => (m.unitCost ? toDecimalString(m.unitCost) : null) }),
  }),
});

const OtherItemRef = builder.objectRef<BreakdownOtherItem>('OrderOtherItem').implement({
  description: 'An order line whose product has no BOM.',
  fields: (t) => ({
    variantId: t.exposeString('variantId', { nullable: true }),
    productId: t.exposeString('productId', { nullable: true }),
    sku: t.exposeString('sku', { nullable: true }),
    title: t.exposeString('title'),
    quantity: t.field({ type: 'Decimal', resolve: (i) => toDecimalString(i.quantity) }),
  }),
});

export const OrderBreakdownRef = builder.objectRef<OrderBreakdown>('OrderBomBreakdown').implement({
  description: 'What the warehouse must pack for an order. Always computed from the current line items.',
  fields: (t) => ({
    orderId: t.exposeString('orderId', { description: 'Bare numeric order id.' }),
    orderName: t.exposeString('orderName'),
    note: t.exposeString('note', {
      nullable: true,
      description: "The order's note, as the merchant or customer wrote it on the platform (Shopify's Order.note); null when it has none. "
        + "Each material's `notes` carries it too (the REST breakdown has no order-level field).",
    }),
    generatedAt: t.field({ type: 'DateTime', resolve: (b) => b.generatedAt }),
    boms: t.field({ type: [BreakdownBomRef], description: 'One entry per order line whose product has a BOM.', resolve: (b) => b.boms }),
    totalMaterials: t.field({ type: [BreakdownTotalRef], description: 'Materials de-duplicated by variant across all BOM lines.', resolve: (b) => b.totalMaterials }),
    otherItems: t.field({ type: [OtherItemRef], description: 'Order lines whose product has no BOM.', resolve: (b) => b.otherItems }),
  }),
});

const BatchRef = builder.objectRef<{ items: OrderBreakdown[]; notFound: string[] }>('OrderBomBreakdownBatch').implement({
  fields: (t) => ({
    items: t.field({ type: [OrderBreakdownRef], resolve: (b) => b.items }),
    notFound: t.exposeStringList('notFound', { description: 'Requested ids (as sent) that resolve to no order of the shop.' }),
  }),
});

builder.queryFields((t) => ({
  orderBomBreakdown: t.field({
    type: OrderBreakdownRef,
    description: 'One order by bare id or gid://<platform>/Order/<digits>; NOT_FOUND when it does not resolve.',
    authScopes: { read: true },
    args: { id: t.arg.string({ required: true }), locationId: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => orderBreakdown(ctx, args.id, args.locationId ?? null),
  }),
  orderBomBreakdowns: t.field({
    type: BatchRef,
    description: '1–50 orders (duplicates count); unresolvable ids are listed in notFound.',
    authScopes: { read: true },
    args: { ids: t.arg.stringList({ required: true }), locationId: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => orderBreakdowns(ctx, args.ids, args.locationId ?? null),
  }),
}));
