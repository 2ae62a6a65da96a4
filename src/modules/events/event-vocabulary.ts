// The events vocabulary: the topics bomcore writes (each with what it means), the statuses of a
// webhook delivery and the note an endpoint's log gets when it is disabled. The GraphQL enums
// (schema/types/events/webhook-enums.ts), the CLI's --topics check and the docs test import these.

/** Every event topic, with what its `data` says. */
export const EVENT_TOPIC_MEANINGS = {
  'inventory.level_changed': 'A stock level moved: the variant (or assembly shelf), the location, before and after, and the build run, order or adjustment that moved it.',
  'work_order.created': 'A work order was created.',
  'work_order.updated': 'A work order\'s header, items or records changed (not its status).',
  'work_order.transitioned': 'A work order moved from one status to another (from, to, lifecycleEventId).',
  'build_run.started': 'A build run started: it consumed stock.',
  'build_run.completed': 'A build run completed: its output went to the shelves.',
  'build_run.reversed': 'A build run was reversed: its stock came back.',
  'material.updated': 'A raw material was created or changed (not its levels: see inventory.level_changed).',
  'bom.updated': 'A BOM or assembly bill was created, changed or archived.',
  'platform.push_stuck': 'A stock move of a platform-linked variant failed its first push to the platform and is being retried.',
  'platform.push_recovered': 'A push that had failed reached the platform.',
} as const;

export type EventTopic = keyof typeof EVENT_TOPIC_MEANINGS;
export const EVENT_TOPICS = Object.keys(EVENT_TOPIC_MEANINGS) as EventTopic[];

export const isEventTopic = (value: string): value is EventTopic => Object.hasOwn(EVENT_TOPIC_MEANINGS, value);

/** A topic's GraphQL enum name: `inventory.level_changed` → `INVENTORY_LEVEL_CHANGED` (GraphQL names allow no dot). */
export const topicEnumName = (topic: EventTopic): string => topic.replace('.', '_').toUpperCase();

/**
 * A delivery's status: `pending` (due now or at `nextAttemptAt`), `delivered` (a 2xx within the
 * timeout), `abandoned` (its endpoint was disabled, or it failed for the whole retry window; a
 * replay makes it pending again), `note` (a line of the endpoint's log, not an event: see
 * WEBHOOK_NOTES).
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'abandoned', 'note'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Notes written into an endpoint's delivery log (as a delivery's `eventType`). */
export const WEBHOOK_NOTES = {
  'webhook.endpoint_disabled': 'The endpoint failed every delivery for the whole retry window and was disabled; `lastError` says why.',
} as const;
export type WebhookNote = keyof typeof WEBHOOK_NOTES;
