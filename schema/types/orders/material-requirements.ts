import { syncMaterialRequirements, type MetafieldSyncResult } from '../../../src/modules/orders/metafield-sync.ts';
import { parseOrderId } from '../../../src/modules/orders/order-ids.ts';
import { builder } from '../../builder.ts';
import { payloadField } from '../common/payload.ts';

const SyncResultRef = builder.objectRef<MetafieldSyncResult>('MaterialRequirementsSync').implement({
  description: 'What a material-requirements metafield write did.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'False when the shop has not opted in: nothing was written.' }),
    written: t.exposeInt('written', { description: 'Orders whose metafield was written.' }),
    namespace: t.exposeString('namespace'),
    key: t.exposeString('key'),
  }),
});

builder.mutationField('syncOrderMaterialRequirements', (t) =>
  payloadField(t, 'syncOrderMaterialRequirements', {
    type: SyncResultRef,
    description: 'Writes <namespace>.material_requirements_json on the given orders (all orders when omitted) through the platform gateway, if the shop has opted in.',
    args: { orderIds: t.arg.stringList({ required: false, description: 'Bare or global order ids.' }) },
    resolve: (_root, args, ctx) => {
      if (!args.orderIds) return syncMaterialRequirements(ctx, null);
      const ids = args.orderIds.map((raw) => parseOrderId(raw, ctx.config.platformName) ?? raw);
      return syncMaterialRequirements(ctx, ids);
    },
  }),
);
