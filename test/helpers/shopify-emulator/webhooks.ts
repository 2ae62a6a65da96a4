import { createHmac, randomUUID } from 'node:crypto';
import { TOPICS } from './payloads.ts';

// Webhook deliveries as Shopify makes them (https://shopify.dev/docs/apps/build/webhooks/subscribe/https):
// a POST of the JSON payload with X-Shopify-Topic, X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the
// raw body with the app's client secret), X-Shopify-Shop-Domain, X-Shopify-API-Version,
// X-Shopify-Webhook-Id, X-Shopify-Event-Id and X-Shopify-Triggered-At; a 2xx within 5 seconds is a
// delivery, anything else is retried (https://shopify.dev/docs/apps/build/webhooks/ignore-duplicates
// for the event id shared by a retry and a second subscription).

/** One webhook Shopify sent (or held, or dropped): the exact bytes and headers, to send again at will. */
export interface WebhookDelivery {
  /** Emulator-wide sequence number. */
  seq: number;
  topic: string;
  uri: string;
  subscriptionId: string;
  eventId: string;
  webhookId: string;
  body: string;
  headers: Record<string, string>;
  status: 'held' | 'dropped' | 'sending' | 'delivered' | 'failed';
  /** HTTP statuses of each attempt (0 = network error or timeout). */
  attempts: number[];
}

export interface DeliveryOptions {
  shopDomain: string;
  apiVersion: string;
  apiSecret: string;
  now: Date;
}

let seq = 0;

/** Shopify's webhook signature: base64 HMAC-SHA256 of the raw body with the app's secret. */
export function webhookHmac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

export function makeDelivery(topicEnum: string, subscription: { id: string; uri: string }, eventId: string, payload: unknown, opts: DeliveryOptions): WebhookDelivery {
  const topic = TOPICS[topicEnum] ?? topicEnum.toLowerCase();
  const body = JSON.stringify(payload);
  const webhookId = randomUUID();
  return {
    seq: ++seq, topic, uri: subscription.uri, subscriptionId: subscription.id, eventId, webhookId, body, status: 'held', attempts: [],
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-hmac-sha256': webhookHmac(opts.apiSecret, body),
      'x-shopify-shop-domain': opts.shopDomain,
      'x-shopify-api-version': opts.apiVersion,
      'x-shopify-webhook-id': webhookId,
      'x-shopify-event-id': eventId,
      'x-shopify-triggered-at': opts.now.toISOString(),
    },
  };
}

/** POSTs a delivery as it was first made (same ids, same signature); Shopify gives a receiver 5 s. */
export async function sendDelivery(delivery: WebhookDelivery, timeoutMs = 5000): Promise<number> {
  delivery.status = 'sending';
  let status = 0;
  try {
    const response = await fetch(delivery.uri, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
    await response.arrayBuffer();
  } catch {
    status = 0;
  }
  delivery.attempts.push(status);
  delivery.status = status >= 200 && status < 300 ? 'delivered' : 'failed';
  return status;
}
