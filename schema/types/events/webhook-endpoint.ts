import { isEventTopic, type EventTopic, type WebhookNote } from '../../../src/modules/events/event-vocabulary.ts';
import {
  listWebhookEndpoints, recentDeliveries, type WebhookDeliveryView, type WebhookEndpointView,
} from '../../../src/modules/events/webhook-endpoints.service.ts';
import { builder } from '../../builder.ts';
import { WebhookDeliveryStatusEnum, WebhookNoteEnum, WebhookTopicEnum } from './webhook-enums.ts';

export const WebhookDeliveryRef = builder.objectRef<WebhookDeliveryView>('WebhookDelivery').implement({
  description: 'One event sent (or to be sent) to one endpoint, or a note of its log.',
  fields: (t) => ({
    deliveryId: t.exposeID('deliveryId', { description: 'Pass it to `replayWebhookDelivery` to send the event again.' }),
    topic: t.field({ type: WebhookTopicEnum, nullable: true, description: 'The event\'s topic; null for a note.', resolve: (d) => (isEventTopic(d.eventType) ? (d.eventType as EventTopic) : null) }),
    logNote: t.field({ type: WebhookNoteEnum, nullable: true, description: 'The note, for a log line that is no event.', resolve: (d) => (d.status === 'note' ? (d.eventType as WebhookNote) : null) }),
    sequence: t.string({ nullable: true, description: 'The event\'s number in the shop\'s sequence (a decimal integer as text).', resolve: (d) => d.eventSequence }),
    status: t.expose('status', { type: WebhookDeliveryStatusEnum }),
    attempts: t.exposeInt('attempts'),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true, description: 'The HTTP status of the last attempt; null when it got none (timeout, refused target).' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last attempt failed (or why the endpoint was disabled, for that note).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When a pending delivery is tried next.' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
  }),
});

export const WebhookEndpointRef = builder.objectRef<WebhookEndpointView>('WebhookEndpoint').implement({
  description: 'Where the shop\'s events are POSTed, signed (Standard Webhooks). The secret is shown only when created or rotated.',
  fields: (t) => ({
    endpointId: t.exposeID('endpointId'),
    url: t.exposeString('url'),
    topics: t.field({ type: [WebhookTopicEnum], resolve: (e) => e.topics }),
    description: t.exposeString('description', { nullable: true }),
    enabled: t.exposeBoolean('enabled', { description: 'False once disabled, by a client or after failing for the whole retry window (3 days); `updateWebhookEndpoint(enabled: true)` turns it back on.' }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    failingSince: t.expose('failingSince', { type: 'DateTime', nullable: true, description: 'The first failure since the last success; null while it answers.' }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', { type: 'DateTime', nullable: true, description: 'After a rotation: until when the previous secret signs too.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

/** Log entries a listing shows per endpoint. */
const RECENT = 20;

builder.objectField(WebhookEndpointRef, 'recentDeliveries', (t) => t.loadableList({
  type: WebhookDeliveryRef,
  description: `The newest ${RECENT} entries of the endpoint's delivery log, newest first.`,
  // One statement for every endpoint of the list.
  load: async (ids: string[], ctx) => {
    const byEndpoint = await recentDeliveries(ctx, ids, RECENT);
    return ids.map((id) => byEndpoint.get(id) ?? []);
  },
  resolve: (endpoint) => endpoint.endpointId,
}));

builder.queryField('webhookEndpoints', (t) => t.field({
  type: [WebhookEndpointRef],
  description: 'The shop\'s webhook endpoints, oldest first, each with its recent deliveries.',
  authScopes: { read: true },
  resolve: (_root, _args, ctx) => listWebhookEndpoints(ctx),
}));
