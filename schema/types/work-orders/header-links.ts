import type { PlatformOrderInfo } from '../../../src/kernel/platform-port/gateway.ts';
import { builder } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { OrderRef } from '../orders/links.ts';
import { WorkOrderHeaderRef } from './work-order.ts';
import { linkField } from '../common/link-field.ts';

// A work order's header names its assignee and the platform orders it was made for.

linkField(WorkOrderHeaderRef, 'assignee', 'Assignee', 'The assignee of `assigneeId` (retired ones too); null when unassigned.', (w) => w.assigneeId);

builder.interfaceField(WorkOrderHeaderRef, 'sourceOrders', (t) =>
  t.field({
    type: [OrderRef],
    description: 'The platform orders of `sourceOrderIds` that the platform still knows, in that order. Batched: every order of a page is one platform read.',
    resolve: async (w, _args, ctx) => {
      const orders = await loadersOf(ctx).order.loadMany(w.sourceOrderIds);
      const failed = orders.find((o) => o instanceof Error);
      if (failed) throw failed; // the platform did not answer: an error, not an empty list
      return orders.filter((o): o is PlatformOrderInfo => o !== null);
    },
  }),
);
