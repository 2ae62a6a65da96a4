import {
  EVENT_TOPIC_MEANINGS, EVENT_TOPICS, topicEnumName, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_NOTES, type EventTopic, type WebhookNote,
} from '../../../src/modules/events/event-vocabulary.ts';
import { builder, describedValues } from '../../builder.ts';

// The events vocabulary as GraphQL enums (src/modules/events/event-vocabulary.ts). A topic's
// GraphQL name has no dot (`INVENTORY_LEVEL_CHANGED`); its value, and what webhooks carry as
// `type`, is the topic itself (`inventory.level_changed`).

export const WebhookTopicEnum = builder.enumType('WebhookTopic', {
  description: 'An event topic. Payloads carry it as `type` in its dotted form (`INVENTORY_LEVEL_CHANGED` is `inventory.level_changed`); see docs/events.md.',
  values: Object.fromEntries(EVENT_TOPICS.map((topic) => [topicEnumName(topic), { value: topic, description: `\`${topic}\`: ${EVENT_TOPIC_MEANINGS[topic]}` }])) as
    Record<string, { value: EventTopic; description: string }>,
});

export const WebhookDeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description: 'Where a delivery stands: pending (due now or at nextAttemptAt), delivered (a 2xx), abandoned (endpoint disabled or retry window over; replay sends it again), note (a log line, not an event).',
  values: WEBHOOK_DELIVERY_STATUSES,
});

export const WebhookNoteEnum = builder.enumType('WebhookNote', {
  description: 'A note of an endpoint\'s delivery log, by its dotted name in lower case with underscores for the dot (`WEBHOOK_ENDPOINT_DISABLED` is `webhook.endpoint_disabled`).',
  values: Object.fromEntries(Object.entries(describedValues(WEBHOOK_NOTES)).map(([note, value]) => [note.replace('.', '_').toUpperCase(), { ...value, value: note as WebhookNote }])) as
    Record<string, { value: WebhookNote; description: string }>,
});
