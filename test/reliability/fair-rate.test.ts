import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenBucketLimiter, type RateLimiter } from '../../src/http/limits/rate-limiter.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * The rate limit counts calls, not their size (the contract: "a batch order-breakdown call consumes
 * one rate-limit token regardless of the number of orders"). Every REST call spends one token; a
 * /graphql request spends the REST calls it stands for: one per root field it runs, each alias
 * counting, a batch of operations the sum of theirs. What a request computes is admission's
 * business (test/reliability/fair-budget.test.ts), not the rate limit's.
 */
const BURST = 40;
const breakdownBatch = ['batch.graphql', 'breakdown-fields.graphql']
  .map((f) => readFileSync(new URL(`../../rest-facade/routes/orders/${f}`, import.meta.url), 'utf8')).join('\n');
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(5001 + i));
/** `aliases` breakdown batches of the ids in `$ids`, selecting only notFound. */
const aliasedBatches = (aliases: number) =>
  `query B($ids: [String!]!) { ${Array.from({ length: aliases }, (_, i) => `a${i}: orderBomBreakdowns(ids: $ids) { notFound }`).join(' ')} }`;

describe('TokenBucketLimiter: the RateLimiter every instance kind implements (async take with a cost)', () => {
  it('spends the cost asked for, refuses (spending nothing) when fewer tokens remain, and refills with time', async () => {
    let now = 0;
    const limiter: RateLimiter = new TokenBucketLimiter(10, 1, () => now);
    expect(await limiter.take('k', 4)).toMatchObject({ allowed: true, limit: 10, remaining: 6 });
    expect(await limiter.take('k')).toMatchObject({ allowed: true, remaining: 5 });
    expect(await limiter.take('k', 6)).toMatchObject({ allowed: false, remaining: 5, retryAfterSeconds: 1 });
    now += 3000;
    expect(await limiter.take('k', 8)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('other', 1)).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('a cost above the burst is charged as the whole burst: it waits for a full bucket instead of never passing', async () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(10, 2, () => now);
    expect(await limiter.take('k', 1000)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await limiter.take('k', 1000);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 5 });
    now += 5000;
    expect((await limiter.take('k', 1000)).allowed).toBe(true);
  });
});

describe('one token per REST call, one per GraphQL root field (RATE_LIMIT_BURST 40, no refill to speak of)', () => {
  let t: TestApp;
  let shop: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitBurst: BURST, rateLimitRefillPerSecond: 0.001 } });
    shop = uniqueShopId('fair-rate');
    await t.load(toDataset(datasetJson(shop)));
  });
  afterAll(() => t.close());

  const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['ratelimit-remaining']);

  it('a breakdown batch of 50 orders spends exactly one token, like one order or a location list', async () => {
    const key = await t.createKey(shop, ['read']);
    const batch = await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?ids=${ids(50).join(',')}`, key });
    expect(batch.statusCode).toBe(200);
    expect(remaining(batch)).toBe(BURST - 1);
    const one = await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown/${ids(1)[0]}`, key });
    expect(remaining(one)).toBe(BURST - 2);
    const locations = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(remaining(locations)).toBe(BURST - 3);
  });

  it('a 1000-row page spends one token, like a 50-row page', async () => {
    const key = await t.createKey(shop, ['read']);
    const small = await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=50', key });
    expect(remaining(small)).toBe(BURST - 1);
    for (const url of ['/api/v1/bills-of-materials?pageSize=1000', '/api/v1/raw-materials?pageSize=1000']) {
      const before = remaining(await t.request({ method: 'GET', url: '/api/v1/locations', key }));
      const big = await t.request({ method: 'GET', url, key });
      expect(big.statusCode, url).toBe(200);
      expect(remaining(big), url).toBe(before - 1);
    }
  });

  it('/graphql: one token per root field, each alias counting — 30 aliased breakdown batches spend 30, one batch 1', async () => {
    const key = await t.createKey(shop, ['read']);
    const one = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: breakdownBatch, variables: { ids: ids(50) } } });
    expect(one.statusCode).toBe(200);
    expect(remaining(one)).toBe(BURST - 1);
    const thirty = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: aliasedBatches(30), variables: { ids: ids(50) } } });
    expect(thirty.statusCode).toBe(200);
    expect(thirty.json().data.a29.notFound).toHaveLength(49);
    expect(remaining(thirty)).toBe(BURST - 1 - 30);
  });

  it('/graphql: a batch of operations spends the sum of theirs; __typename alone still spends the one token every request spends', async () => {
    const key = await t.createKey(shop, ['read']);
    const batch = await t.request({
      method: 'POST', url: '/graphql', key,
      payload: [{ query: breakdownBatch, variables: { ids: ids(20) } }, { query: '{ locations { locationId } assignees { assigneeId } }' }],
    });
    expect(batch.statusCode).toBe(200);
    expect(remaining(batch)).toBe(BURST - 3);
    const typename = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: '{ __typename }' } });
    expect(remaining(typename)).toBe(BURST - 4);
  });

  it('over the bucket: 429 RATE_LIMITED + Retry-After, the body naming the request\'s tokens and the limit, nothing run', async () => {
    const key = await t.createKey(shop, ['read']);
    // 40 tokens: 40 calls of any size pass, the 41st is refused.
    for (let i = 0; i < BURST; i += 1) {
      const url = i % 2 === 0 ? '/api/v1/bills-of-materials?pageSize=1000' : `/api/v1/order-bom-breakdown?ids=${ids(50).join(',')}`;
      expect((await t.request({ method: 'GET', url, key })).statusCode).toBe(200);
    }
    const refused = await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=1000', key });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', detail: expect.stringMatching(/costs 1 token, the limit is 40 tokens/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-query-count']).toBeUndefined();

    const other = await t.createKey(shop, ['read']);
    const first = await t.request({ method: 'POST', url: '/graphql', key: other, payload: { query: aliasedBatches(30), variables: { ids: ids(50) } } });
    expect(remaining(first)).toBe(BURST - 30);
    // 10 left: 30 more batches are refused with their tokens in the body, and run nothing.
    const gql = await t.request({ method: 'POST', url: '/graphql', key: other, payload: { query: aliasedBatches(30), variables: { ids: ids(50) } } });
    expect(gql.statusCode).toBe(429);
    expect(gql.json()).toMatchObject({ code: 'RATE_LIMITED', detail: expect.stringMatching(/this request costs 30 tokens, the limit is 40 tokens/) });
    expect(gql.headers['x-query-count']).toBeUndefined();
    // A smaller request still passes: the refusal spent only the token every request spends.
    expect(remaining(await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?ids=${ids(50).join(',')}`, key: other }))).toBe(BURST - 30 - 1 - 1);
  });
});
