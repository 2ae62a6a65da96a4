import { DomainError } from '../../../src/kernel/domain-error.ts';
import { liveTopic, type LiveEvent } from '../../../src/modules/events/event-feed.ts';
import type { EventTopic } from '../../../src/modules/events/event-vocabulary.ts';
import type { LevelChangeSource } from '../../../src/modules/stock/stock-vocabulary.ts';
import type { WorkOrderStatus } from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { StockLevelChangeSourceEnum } from '../stock/enums.ts';
import { WebhookTopicEnum } from './webhook-enums.ts';
import { WorkOrderStatusEnum } from '../work-orders/enums.ts';

// Live subscriptions for dashboards (docs/events.md, "Subscriptions"): the shop's committed events,
// as webhooks get them, over graphql-ws on /graphql. The server publishes each event on its shop's
// topic only (src/http/graphql/live-events.ts); a field filters them by its arguments. No SQL per event
// and subscriber: what a field returns is in the event.

/** At most this many ids in one filter argument. */
const MAX_FILTER_IDS = 100;

const STOCK_TOPICS: readonly EventTopic[] = ['inventory.level_changed'];
const WORK_ORDER_TOPICS: readonly EventTopic[] = ['work_order.created', 'work_order.updated', 'work_order.transitioned'];
const BUILD_RUN_TOPICS: readonly EventTopic[] = ['build_run.started', 'build_run.completed', 'build_run.reversed'];

const text = (event: LiveEvent, field: string): string | null => {
  const value = event.data[field];
  return typeof value === 'string' ? value : null;
};

function checkIds(field: string, ids: readonly string[] | null | undefined): ReadonlySet<string> | null {
  if (ids === null || ids === undefined) return null;
  if (ids.length > MAX_FILTER_IDS) throw DomainError.invalid(field, `holds at most ${MAX_FILTER_IDS} ids; this one has ${ids.length}`);
  return new Set(ids);
}

/** Keeps only the events `keep` accepts; ending the subscription ends the source at once (no wait for its next event). */
function filtered(source: AsyncIterable<LiveEvent>, keep: (event: LiveEvent) => boolean): AsyncIterableIterator<LiveEvent> {
  const iterator = source[Symbol.asyncIterator]();
  return {
    async next() {
      for (;;) {
        const result = await iterator.next();
        if (result.done || keep(result.value)) return result;
      }
    },
    return: async () => (iterator.return ? iterator.return() : { done: true, value: undefined }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** The shop's live events (its key's shop: no argument names a shop) that `keep` accepts. */
async function liveEvents(ctx: GraphQLContext, keep: (event: LiveEvent) => boolean): Promise<AsyncIterableIterator<LiveEvent>> {
  const pubsub = (ctx as unknown as { pubsub?: { subscribe(topic: string): Promise<AsyncIterable<LiveEvent>> } }).pubsub;
  if (!pubsub) throw new DomainError('INVALID_INPUT', 'subscriptions run over a graphql-ws connection to /graphql (docs/events.md)');
  return filtered(await pubsub.subscribe(liveTopic(ctx.shopId)), keep);
}

const LiveEventRef = builder.objectRef<LiveEvent>('LiveEvent').implement({
  description: 'A committed event, as a webhook delivery carries it (docs/events.md).',
  fields: (t) => ({
    eventId: t.exposeString('eventId', { description: 'The event id (`evt_…`): the same as its webhook deliveries\' `id`.' }),
    type: t.field({ type: WebhookTopicEnum, resolve: (e) => e.type }),
    sequence: t.exposeString('sequence', { description: 'The shop\'s event number (a decimal integer): later events have higher numbers.' }),
    resource: t.exposeString('resource', { description: 'What the event is about (`work_order:<id>`, …).' }),
    occurredAt: t.field({ type: 'DateTime', resolve: (e) => e.occurredAt }),
    data: t.exposeString('dataJson', { description: 'The event\'s `data` as JSON text, numbers with their exact digits (docs/events.md lists each topic\'s fields).' }),
  }),
});

const StockLevelChangeRef = builder.objectRef<LiveEvent>('StockLevelChange').implement({
  description: 'A stock level moved (`inventory.level_changed`).',
  fields: (t) => ({
    event: t.field({ type: LiveEventRef, resolve: (e) => e }),
    variantId: t.string({ nullable: true, description: 'The material\'s variant (null for a pre-assembled shelf).', resolve: (e) => text(e, 'variantId') }),
    itemId: t.string({ nullable: true, description: 'The pre-assembled item (null for a material).', resolve: (e) => text(e, 'itemId') }),
    locationId: t.string({ resolve: (e) => text(e, 'locationId') ?? '' }),
    before: t.field({ type: 'Decimal', resolve: (e) => text(e, 'before') ?? '0' }),
    after: t.field({ type: 'Decimal', resolve: (e) => text(e, 'after') ?? '0' }),
    delta: t.field({ type: 'Decimal', resolve: (e) => text(e, 'delta') ?? '0' }),
    source: t.field({ type: StockLevelChangeSourceEnum, resolve: (e) => text(e, 'source') as LevelChangeSource }),
    workOrderId: t.string({ nullable: true, resolve: (e) => text(e, 'workOrderId') }),
    buildRunId: t.string({ nullable: true, resolve: (e) => text(e, 'buildRunId') }),
  }),
});

/** The status an event leaves its work order in: `created`'s status, `transitioned`'s `to`; an `updated` event changes none. */
const statusAfter = (e: LiveEvent): WorkOrderStatus | null => (text(e, e.type === 'work_order.transitioned' ? 'to' : 'status') as WorkOrderStatus | null);

const WorkOrderChangeRef = builder.objectRef<LiveEvent>('WorkOrderChange').implement({
  description: 'A work order was created, changed or moved to another status (`work_order.*`).',
  fields: (t) => ({
    event: t.field({ type: LiveEventRef, resolve: (e) => e }),
    workOrderId: t.string({ resolve: (e) => text(e, 'workOrderId') ?? '' }),
    status: t.field({ type: WorkOrderStatusEnum, nullable: true, description: 'Its status after the event (null for `work_order.updated`, which changes no status).', resolve: statusAfter }),
    previousStatus: t.field({ type: WorkOrderStatusEnum, nullable: true, description: 'The status it left (`work_order.transitioned` only).',
      resolve: (e) => (e.type === 'work_order.transitioned' ? text(e, 'from') as WorkOrderStatus | null : null) }),
  }),
});

const BuildRunChangeRef = builder.objectRef<LiveEvent>('BuildRunChange').implement({
  description: 'A build run started, completed or was reversed (`build_run.*`).',
  fields: (t) => ({
    event: t.field({ type: LiveEventRef, resolve: (e) => e }),
    workOrderId: t.string({ resolve: (e) => text(e, 'workOrderId') ?? '' }),
    buildRunId: t.string({ resolve: (e) => text(e, 'buildRunId') ?? '' }),
  }),
});

builder.subscriptionType({
  description: 'Live changes of the key\'s shop, over graphql-ws on /graphql (docs/events.md). An event arrives once its change has committed, on every instance.',
});

builder.subscriptionField('stockLevelChanged', (t) => t.field({
  type: StockLevelChangeRef,
  description: `Stock level moves, of the given variants and locations only when given (each list at most ${MAX_FILTER_IDS} ids; a pre-assembled shelf has no variant and passes only without variantIds).`,
  authScopes: { read: true },
  args: { variantIds: t.arg.stringList({ required: false }), locationIds: t.arg.stringList({ required: false }) },
  subscribe: (_root, args, ctx) => {
    const variants = checkIds('variantIds', args.variantIds);
    const locations = checkIds('locationIds', args.locationIds);
    return liveEvents(ctx, (e) => STOCK_TOPICS.includes(e.type)
      && (!variants || variants.has(text(e, 'variantId') ?? '')) && (!locations || locations.has(text(e, 'locationId') ?? '')));
  },
  resolve: (event) => event,
}));

builder.subscriptionField('workOrderChanged', (t) => t.field({
  type: WorkOrderChangeRef,
  description: 'Work orders created, changed or moved, of the given ids only when given; with statuses, only the events that leave a work order in one of them (a `work_order.updated` event, which changes no status, is left out).',
  authScopes: { read: true },
  args: { workOrderIds: t.arg.stringList({ required: false }), statuses: t.arg({ type: [WorkOrderStatusEnum], required: false }) },
  subscribe: (_root, args, ctx) => {
    const ids = checkIds('workOrderIds', args.workOrderIds);
    const statuses = args.statuses ? new Set<string>(args.statuses) : null;
    return liveEvents(ctx, (e) => WORK_ORDER_TOPICS.includes(e.type)
      && (!ids || ids.has(text(e, 'workOrderId') ?? '')) && (!statuses || statuses.has(statusAfter(e) ?? '')));
  },
  resolve: (event) => event,
}));

builder.subscriptionField('buildRunChanged', (t) => t.field({
  type: BuildRunChangeRef,
  description: 'Build runs of one work order started, completed or reversed.',
  authScopes: { read: true },
  args: { workOrderId: t.arg.string({ required: true }) },
  subscribe: (_root, args, ctx) => liveEvents(ctx, (e) => BUILD_RUN_TOPICS.includes(e.type) && text(e, 'workOrderId') === args.workOrderId),
  resolve: (event) => event,
}));
