import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { receiveWebhook, verifyShopifyHmac } from '../../platform/shopify/webhooks/receive.ts';
import { sendProblem } from '../errors/problem.ts';

/** Shopify's webhook bodies can be large (an order with hundreds of lines): more room than an API request. */
const WEBHOOK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

export interface ShopifyWebhookOptions {
  orm: Orm;
  /** SHOPIFY_API_SECRET, the app's API secret key that signs webhooks; null answers 503. */
  secret: string | null;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `POST /webhooks/shopify`: Shopify's webhooks in. The body is kept as raw bytes (its own
 * content-type parser, in this plugin's scope only) because the signature is over those bytes.
 * A bad or missing signature is 401 and nothing is stored; a signed event is stored in the shop's
 * inbox (once per event id) and answered 200 at once; the webhook applier applies it afterwards.
 * A store no shop here is connected to is answered 200 and logged (retrying would not help:
 * Shopify would retry for 48 hours a delivery bomcore can never use). Hidden from the REST
 * OpenAPI document: it is Shopify's contract, not bomcore's API.
 */
export async function registerShopifyWebhooks(app: FastifyInstance, options: ShopifyWebhookOptions): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));
    scope.post('/webhooks/shopify', { schema: { hide: true }, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request: FastifyRequest, reply: FastifyReply) => {
      if (!options.secret) {
        return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: 'SHOPIFY_API_SECRET is not set: bomcore cannot check the signature of Shopify webhooks' });
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!verifyShopifyHmac(options.secret, raw, header(request, 'x-shopify-hmac-sha256'))) {
        return sendProblem(request, reply, { code: 'UNAUTHENTICATED', detail: 'the X-Shopify-Hmac-Sha256 signature does not match the body and the app secret' });
      }
      const received = await receiveWebhook(options.orm.em.fork(), {
        topic: header(request, 'x-shopify-topic'), shopDomain: header(request, 'x-shopify-shop-domain'), eventId: header(request, 'x-shopify-event-id'),
        webhookId: header(request, 'x-shopify-webhook-id'), triggeredAt: header(request, 'x-shopify-triggered-at'),
      }, raw);
      switch (received.outcome) {
        case 'invalid':
          return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: received.reason });
        case 'unknown-shop':
          request.log.warn({ shopDomain: received.domain, topic: header(request, 'x-shopify-topic') }, 'Shopify webhook for a store no shop is connected to: ignored');
          return reply.send({ received: false, reason: 'no shop is connected to this store' });
        case 'ignored':
          request.log.info({ shopId: received.shopId, reason: received.reason }, 'Shopify webhook ignored');
          return reply.send({ received: false, reason: received.reason });
        default:
          return reply.send({ received: true, duplicate: received.outcome === 'duplicate' });
      }
    });
  });
}
