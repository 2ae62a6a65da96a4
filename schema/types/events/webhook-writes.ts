import {
  createWebhookEndpoint, deleteWebhookEndpoint, replayWebhookDelivery, rotateWebhookSecret, updateWebhookEndpoint, type WebhookEndpointView,
} from '../../../src/modules/events/webhook-endpoints.service.ts';
import { builder } from '../../builder.ts';
import { payloadField } from '../common/payload.ts';
import { WebhookTopicEnum } from './webhook-enums.ts';
import { WebhookDeliveryRef, WebhookEndpointRef } from './webhook-endpoint.ts';

// Managing a shop's webhook endpoints (write scope). The signing secret is answered only by
// create and rotate: bomcore keeps it sealed and never shows it again.

interface EndpointWithSecret { endpoint: WebhookEndpointView; secret: string }

const EndpointWithSecretRef = builder.objectRef<EndpointWithSecret>('WebhookEndpointSecret').implement({
  description: 'An endpoint and its signing secret, shown this once.',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpointRef, resolve: (r) => r.endpoint }),
    secret: t.exposeString('secret', { description: '`whsec_` + base64 key: verify signatures with it (Standard Webhooks). Shown only now.' }),
  }),
});

const DeletedWebhookEndpointRef = builder.objectRef<{ endpointId: string }>('DeletedWebhookEndpoint').implement({
  description: 'The endpoint deleted, with its delivery log.',
  fields: (t) => ({ endpointId: t.exposeID('endpointId') }),
});

builder.mutationFields((t) => ({
  createWebhookEndpoint: payloadField(t, 'createWebhookEndpoint', {
    type: EndpointWithSecretRef,
    description: 'Adds an endpoint that receives the events of `topics`, signed with a new secret (answered once). The URL must be https in production; ' +
      'loopback, private and link-local targets are refused unless the server allows them.',
    args: {
      url: t.arg.string({ required: true, description: 'Where events are POSTed.' }),
      topics: t.arg({ type: [WebhookTopicEnum], required: true, description: 'The topics it receives (at least one).' }),
      description: t.arg.string({ description: 'Your note about it.' }),
    },
    resolve: (_root, a, ctx) => createWebhookEndpoint(ctx, { url: a.url, topics: a.topics, description: a.description ?? null }),
  }),
  updateWebhookEndpoint: payloadField(t, 'updateWebhookEndpoint', {
    type: WebhookEndpointRef,
    description: 'Changes an endpoint: absent arguments stay. `enabled: true` turns a disabled endpoint back on with a fresh retry window.',
    args: {
      endpointId: t.arg.id({ required: true }),
      url: t.arg.string(),
      topics: t.arg({ type: [WebhookTopicEnum] }),
      description: t.arg.string(),
      enabled: t.arg.boolean(),
    },
    resolve: (_root, a, ctx) => updateWebhookEndpoint(ctx, String(a.endpointId), {
      url: a.url, topics: a.topics, enabled: a.enabled, ...(a.description !== undefined ? { description: a.description } : {}),
    }),
  }),
  rotateWebhookSecret: payloadField(t, 'rotateWebhookSecret', {
    type: EndpointWithSecretRef,
    description: 'Gives an endpoint a new secret (answered once). The previous one keeps signing beside it for `overlapSeconds`, so receivers can switch without a gap.',
    args: {
      endpointId: t.arg.id({ required: true }),
      overlapSeconds: t.arg.int({ defaultValue: 86_400, description: 'How long the previous secret signs too (0–604800; default a day).' }),
    },
    resolve: (_root, a, ctx) => rotateWebhookSecret(ctx, String(a.endpointId), a.overlapSeconds ?? 86_400),
  }),
  deleteWebhookEndpoint: payloadField(t, 'deleteWebhookEndpoint', {
    type: DeletedWebhookEndpointRef,
    description: 'Deletes an endpoint and its delivery log; nothing more is sent to it.',
    args: { endpointId: t.arg.id({ required: true }) },
    resolve: (_root, a, ctx) => deleteWebhookEndpoint(ctx, String(a.endpointId)),
  }),
  replayWebhookDelivery: payloadField(t, 'replayWebhookDelivery', {
    type: WebhookDeliveryRef,
    description: 'Sends a delivery\'s event to its endpoint again, as a new delivery due now (same event id: a receiver that keeps ids sees a duplicate).',
    args: { deliveryId: t.arg.id({ required: true }) },
    resolve: (_root, a, ctx) => replayWebhookDelivery(ctx, String(a.deliveryId)),
  }),
}));
