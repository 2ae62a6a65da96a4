import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app/app.ts';
import { loadConfig, type Config } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/db/orm.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { openTestOrm } from './database.ts';
import { OpenApiValidator } from './openapi-validator.ts';

export interface TestApp {
  app: App;
  orm: Orm;
  config: Config;
  /** Injects a request; every documented REST response is validated against openapi.json. */
  request(options: InjectOptions & { key?: string }): Promise<LightMyRequestResponse>;
  /** GET with a key, returning the response and its parsed JSON body. */
  get(url: string, key: string): Promise<{ status: number; body: any; headers: LightMyRequestResponse['headers'] }>;
  /** PATCHes a JSON body with a key (Content-Type: application/json, plus `headers`). */
  patch(url: string, key: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** POSTs a GraphQL operation; `statements` is the SQL statements it sent (its X-Query-Count). */
  graphql(key: string, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any; statements: number }>;
  createKey(shopId: string, scopes: ('read' | 'write')[], extra?: { expiresInMs?: number }): Promise<string>;
  load(dataset: Dataset): Promise<void>;
  close(): Promise<void>;
}

/** Far beyond any request of the suite, below the 60 s test timeout: a hung request still fails as a 503, not a timeout. */
const TEST_REQUEST_DEADLINE_MS = 45_000;

export async function createTestApp(options: { config?: Partial<Config>; orm?: Orm } = {}): Promise<TestApp> {
  // A test file sends hundreds of requests with one key: the rate limit would make it depend on speed. The
  // rate-limit tests pass their own small bucket. Likewise every injected request comes from 127.0.0.1, so the
  // failed-authentication throttle is off unless a test sets authFailuresPerMinute. Load shedding and the
  // request deadline measure the machine, not the code: on a busy 2-core machine they answered 503 inside tests
  // about other rules, so they are off (shedding) or far away (deadline) unless a test about them sets its own.
  const config: Config = {
    ...loadConfig({}), dataDir: 'memory://', rateLimitBurst: 100_000, rateLimitRefillPerSecond: 100_000, authFailuresPerMinute: 1_000_000,
    loadShedLagMs: 0, requestDeadlineMs: TEST_REQUEST_DEADLINE_MS,
    ...options.config,
  };
  const orm = options.orm ?? (await openTestOrm());
  const app = await buildApp({ config, orm, logger: false, exposeQueryCount: true });
  await app.ready();
  const validator = new OpenApiValidator(app.swagger());

  const request: TestApp['request'] = async ({ key, headers, ...rest }) => {
    const response = await app.inject({ ...rest, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
    validator.validateResponse(rest.method ?? 'GET', String(rest.url), response);
    return response;
  };

  return {
    app, orm, config, request,
    async get(url, key) {
      const response = await request({ method: 'GET', url, key });
      return { status: response.statusCode, body: response.json(), headers: response.headers };
    },
    patch(url, key, payload, headers = {}) {
      return request({ method: 'PATCH', url, key, payload: payload as InjectOptions['payload'], headers: { 'content-type': 'application/json', ...headers } });
    },
    async graphql(key, query, variables = {}) {
      const response = await request({ method: 'POST', url: '/graphql', key, payload: { query, variables } });
      const count = response.headers['x-query-count'];
      if (count === undefined) throw new Error('/graphql answered without X-Query-Count: the test app exposes it on every response');
      return { status: response.statusCode, body: response.json(), statements: Number(count) };
    },
    async createKey(shopId, scopes, extra = {}) {
      return (await createApiKey(orm.em.fork(), { shopId, scopes, expiresInMs: extra.expiresInMs ?? null })).key;
    },
    async load(dataset) {
      await loadDataset(orm.em, dataset);
    },
    async close() {
      await app.close();
      if (!options.orm) await orm.close();
    },
  };
}
