import http from 'node:http';
import https from 'node:https';
import type { Config } from '../../kernel/config.ts';
import type { Orm } from '../../db/orm.ts';
import { startPeriodicPass } from '../../kernel/jobs/periodic-pass.ts';
import { secretBoxFor } from '../../kernel/secret-box.ts';
import {
  claimDueDeliveries, claimNextOfResource, disableFailingEndpoint, markDelivered, markFailed, MAX_DELIVERY_ERROR_LENGTH, type ClaimedDelivery,
} from './webhook-deliveries.repository.ts';
import { webhookHeaders } from './webhook-signing.ts';
import { checkedLookup, checkWebhookUrl } from './webhook-targets.ts';

// Delivers events to webhook endpoints. Each pass claims due deliveries (row locks and a lease, so
// instances never share one) and starts their requests without waiting for them: a slow endpoint
// holds its own slots (at most a quarter of the process's) for up to the timeout, never a pass, so
// other endpoints and shops keep being served. What is not delivered stays pending in the database.
// A delivery answered 2xx claims the next event of its (endpoint, resource) in the same statement
// that records it, and sends it at once: a resource's events go at the receiver's pace, in order.

/** Bytes of a response body read at most (the rest is dropped with the connection). */
export const MAX_RESPONSE_BYTES = 4096;

export interface DispatcherLogger { warn(details: Record<string, unknown>, message: string): void }

export interface WebhookDispatcherOptions {
  orm: Orm;
  config: Pick<Config, 'webhooks' | 'secretKey' | 'databaseUrl' | 'dataDir'>;
  logger: DispatcherLogger;
  /** 0 = no timer: passes only through `deliverOnce`. Default: config.webhooks.intervalMs. */
  intervalMs?: number;
  /** Only these shops (tests sharing a database). */
  shopIds?: readonly string[];
}

export interface WebhookDispatcher {
  /** One pass, waiting for the requests it started; answers how many deliveries it claimed. */
  deliverOnce(): Promise<number>;
  /** Stops the timer and waits for every request in flight. */
  stop(): Promise<void>;
}

export interface AttemptOutcome { statusCode: number | null; error: string | null }

/** The event as sent: the envelope around the stored `data` text (exact decimals kept as written). */
export function eventBody(d: Pick<ClaimedDelivery, 'eventId' | 'type' | 'shopId' | 'occurredAt' | 'sequence' | 'data'>): string {
  return `{"id":${JSON.stringify(d.eventId)},"type":${JSON.stringify(d.type)},"shopId":${JSON.stringify(d.shopId)},` +
    `"occurredAt":${JSON.stringify(d.occurredAt.toISOString())},"sequence":${BigInt(d.sequence).toString()},"data":${d.data}}`;
}

/**
 * One POST: the address checked at connection (no private target unless allowed), no redirect
 * followed (a 3xx is a failure), at most MAX_RESPONSE_BYTES of the body read, aborted after the
 * timeout. A 2xx is success.
 */
export function postWebhook(url: string, headers: Record<string, string>, body: string, options: { timeoutMs: number; allowPrivate: boolean }): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST', signal: controller.signal, lookup: checkedLookup(options.allowPrivate), agent: false,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'bomcore-webhooks/1' },
    }, (response) => {
      const statusCode = response.statusCode ?? 0;
      let read = 0;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        if (read < MAX_RESPONSE_BYTES) chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - read));
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) response.destroy();
      });
      const done = () => {
        const ok = statusCode >= 200 && statusCode < 300;
        const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim();
        finish({ statusCode, error: ok ? null : `HTTP ${statusCode}${statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}${text ? `: ${text.slice(0, 200)}` : ''}` });
      };
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.on('error', (err) => finish({ statusCode: null, error: controller.signal.aborted ? `no answer within ${options.timeoutMs / 1000} s` : err.message || 'connection failed' }));
    request.end(body);
  });
}

export function startWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { orm, config, logger } = options;
  const rules = config.webhooks;
  const perEndpoint = Math.max(1, Math.floor(rules.concurrency / 4));
  const leaseMs = rules.timeoutMs * 3;
  const inFlight = new Map<Promise<void>, string>();
  let stopping = false;

  /**
   * Sends `first` and then, in the same slot, the later events of its (endpoint, resource) that are
   * pending: a 2xx is recorded and the resource's next delivery claimed by one statement, and that
   * one is sent at once. A hot resource goes at the receiver's pace, in sequence order, at the cost
   * per delivery it always had (one statement); a failure ends the chain (the next pass retries it).
   */
  async function attemptChain(first: ClaimedDelivery): Promise<void> {
    let current = first;
    for (;;) {
      const outcome = await send(current);
      if (outcome.error !== null || stopping || !current.hasNext) return record(current, outcome);
      const next = await claimNextOfResource(orm.em.fork(), current, { leaseMs, delivered: { delivery: current, statusCode: outcome.statusCode! } });
      if (!next) return;
      current = next;
    }
  }

  /** One POST of a delivery (its URL checked again, signed with the endpoint's secrets). */
  async function send(d: ClaimedDelivery): Promise<AttemptOutcome> {
    try {
      checkWebhookUrl(d.url, rules);
      const box = secretBoxFor(config);
      const secrets = [box.open(d.secretSealed), ...(d.previousSecretSealed ? [box.open(d.previousSecretSealed)] : [])];
      const body = eventBody(d);
      return await postWebhook(d.url, webhookHeaders(secrets, d.eventId, Math.floor(Date.now() / 1000), body), body, { timeoutMs: rules.timeoutMs, allowPrivate: rules.allowPrivate });
    } catch (err) {
      return { statusCode: null, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Records an attempt's outcome: delivered, or failed (retried later; the endpoint disabled after the retry window). */
  async function record(d: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const em = orm.em.fork();
    if (outcome.error === null) {
      await markDelivered(em, d, outcome.statusCode!);
      return;
    }
    const error = outcome.error.slice(0, MAX_DELIVERY_ERROR_LENGTH);
    const expired = await markFailed(em, d, { statusCode: outcome.statusCode, error, retryBaseMs: rules.retryBaseMs, retryMaxMs: rules.retryMaxMs, giveUpMs: rules.giveUpMs });
    if (expired) {
      await disableFailingEndpoint(em, d.shopId, d.endpointId, `failed every delivery for ${Math.round(rules.giveUpMs / 3_600_000)} h; last: ${error}`);
      logger.warn({ shopId: d.shopId, endpointId: d.endpointId, error }, 'webhooks: an endpoint failed for the whole retry window and was disabled');
    }
  }

  async function pass(): Promise<{ claimed: number; started: Promise<void>[] }> {
    const free = rules.concurrency - inFlight.size;
    if (free <= 0) return { claimed: 0, started: [] };
    const perEndpointCount = new Map<string, number>();
    for (const endpointId of inFlight.values()) perEndpointCount.set(endpointId, (perEndpointCount.get(endpointId) ?? 0) + 1);
    const busy = [...perEndpointCount].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
    const claimed = await claimDueDeliveries(orm.em.fork(), { limit: free, perEndpoint, leaseMs, busy, shopIds: options.shopIds ?? null });
    const started = claimed.map((d) => {
      const running = attemptChain(d).catch((err: unknown) => logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'webhooks: recording an attempt failed'));
      inFlight.set(running, d.endpointId);
      void running.finally(() => inFlight.delete(running));
      return running;
    });
    return { claimed: claimed.length, started };
  }

  const loop = startPeriodicPass<{ claimed: number; started: Promise<void>[] }>({
    pass,
    stoppedResult: { claimed: 0, started: [] },
    intervalMs: options.intervalMs ?? rules.intervalMs,
    firstDelayMs: options.intervalMs ?? rules.intervalMs,
    backlog: (result) => result.claimed > 0 && inFlight.size < rules.concurrency,
    onError: (err) => logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'webhooks: a delivery pass failed'),
  });
  return {
    async deliverOnce() {
      const { claimed, started } = await loop.runOnce();
      await Promise.all(started);
      return claimed;
    },
    async stop() {
      stopping = true;
      await loop.stop();
      await Promise.allSettled([...inFlight.keys()]);
    },
  };
}
