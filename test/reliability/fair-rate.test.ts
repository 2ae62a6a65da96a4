import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { loadConfig } from '../../src/config.ts';
import { costInTokens, operationCost } from '../../src/http/graphql-limits.ts';
import { TokenBucketLimiter, type RateLimiter } from '../../src/http/rate-limiter.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * Fair sharing, issue 11: the rate limit spends tokens by cost, not by request. A request costs one
 * token per BOMCORE_RATE_LIMIT_COST_UNIT (2500) of its measured cost, at least one; REST and
 * /graphql measure the same operation the same way, so a GraphQL request costs what its REST
 * equivalent does.
 */
const defaults = loadConfig({});
const UNIT = defaults.rateLimitCostUnit;
const BURST = 40;
const listBoms = readFileSync(new URL('../../rest-facade/routes/bills-of-materials/list.graphql', import.meta.url), 'utf8');
const breakdownBatch = ['batch.graphql', 'breakdown-fields.graphql']
  .map((f) => readFileSync(new URL(`../../rest-facade/routes/order-bom-breakdown/${f}`, import.meta.url), 'utf8')).join('\n');
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(5001 + i));

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

describe('tokens by cost on REST and /graphql (RATE_LIMIT_BURST 40, no refill to speak of)', () => {
  let t: TestApp;
  let shop: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitBurst: BURST, rateLimitRefillPerSecond: 0.001 } });
    shop = uniqueShopId('fair-rate');
    await t.load(toDataset(datasetJson(shop)));
  });
  afterAll(() => t.close());

  const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['ratelimit-remaining']);

  it('a location list costs 1 token; a 1000-row BOM page costs its cost in tokens (10), a 50-row page 1', async () => {
    const key = await t.createKey(shop, ['read']);
    const schema = getSchema();
    const page1000 = costInTokens(operationCost(schema, parse(listBoms), { page: 1, pageSize: 1000 }), UNIT);
    expect(page1000).toBe(10);
    expect(costInTokens(operationCost(schema, parse(listBoms), { page: 1, pageSize: 50 }), UNIT)).toBe(1);
    const first = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(remaining(first)).toBe(BURST - 1);
    const small = await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=50', key });
    expect(remaining(small)).toBe(BURST - 2);
    const big = await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=1000', key });
    expect(big.statusCode).toBe(200);
    expect(remaining(big)).toBe(BURST - 2 - page1000);
  });

  it('a GraphQL request spends what its REST equivalent spends: the breakdown batch of 50 orders, both ways', async () => {
    const restKey = await t.createKey(shop, ['read']);
    const gqlKey = await t.createKey(shop, ['read']);
    const tokens = costInTokens(operationCost(getSchema(), parse(breakdownBatch), { ids: ids(50) }), UNIT);
    expect(tokens).toBe(24);
    const rest = await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?ids=${ids(50).join(',')}`, key: restKey });
    expect(rest.statusCode).toBe(200);
    const gql = await t.request({ method: 'POST', url: '/graphql', key: gqlKey, payload: { query: breakdownBatch, variables: { ids: ids(50) } } });
    expect(gql.statusCode).toBe(200);
    expect(remaining(rest)).toBe(BURST - tokens);
    expect(remaining(gql)).toBe(BURST - tokens);
    // A batch of operations spends the sum of theirs.
    const batchKey = await t.createKey(shop, ['read']);
    const batch = await t.request({ method: 'POST', url: '/graphql', key: batchKey, payload: [{ query: breakdownBatch, variables: { ids: ids(20) } }, { query: '{ locations { locationId } }' }] });
    expect(batch.statusCode).toBe(200);
    const twenty = operationCost(getSchema(), parse(breakdownBatch), { ids: ids(20) });
    const locations = operationCost(getSchema(), parse('{ locations { locationId } }'));
    expect(remaining(batch)).toBe(BURST - costInTokens(twenty + locations, UNIT));
  });

  it('over the bucket: 429 RATE_LIMITED + Retry-After, the body naming the request\'s cost and the limit, nothing run', async () => {
    const key = await t.createKey(shop, ['read']);
    // 40 tokens: three 1000-row pages (30) leave 10 … a fourth fits exactly, a fifth is refused.
    for (let i = 0; i < 4; i += 1) expect((await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=1000', key })).statusCode).toBe(200);
    const refused = await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=1000', key });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', detail: expect.stringMatching(/costs 1 token, the limit is 40 tokens/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-query-count']).toBeUndefined();

    const other = await t.createKey(shop, ['read']);
    for (let i = 0; i < 3; i += 1) await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=1000', key: other });
    // 10 left: a 24-token breakdown batch is refused with its cost in the body, on REST and /graphql.
    const rest = await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?ids=${ids(50).join(',')}`, key: other });
    expect(rest.statusCode).toBe(429);
    expect(rest.json().detail).toMatch(/this request costs 24 tokens, the limit is 40 tokens/);
    const gql = await t.request({ method: 'POST', url: '/graphql', key: other, payload: { query: breakdownBatch, variables: { ids: ids(50) } } });
    expect(gql.statusCode).toBe(429);
    expect(gql.json()).toMatchObject({ code: 'RATE_LIMITED', detail: expect.stringMatching(/this request costs 24 tokens, the limit is 40 tokens/) });
    // A cheap request still passes: the refusals spent only the token every request spends.
    expect((await t.request({ method: 'GET', url: '/api/v1/locations', key: other })).statusCode).toBe(200);
  });
});
