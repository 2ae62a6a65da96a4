import { createAdminApiClient, type AdminApiClient } from '@shopify/admin-api-client';
import { parse, Kind, type OperationDefinitionNode } from 'graphql';
import { SHOPIFY_ADMIN_API_VERSION } from './admin-schema/index.ts';
import { CostPacer, type ThrottleStatus } from './throttle.ts';

/**
 * The Admin GraphQL API of one store, through Shopify's own client (`@shopify/admin-api-client`),
 * with what that client leaves to its caller: pacing by query cost, waiting out `THROTTLED`
 * (answered as HTTP 200), retrying 429, 5xx, timeouts and network errors with exponential backoff
 * and jitter, and telling a permanent failure (a revoked token, a missing scope, an invalid
 * request) from a passing one, so the caller stops instead of retrying forever.
 */
export interface ShopifyStore {
  /** `x.myshopify.com`. */
  domain: string;
  /** A token as it is (a token file's), or its source (an expiring token, renewed: access-token.ts). */
  accessToken: string | AccessTokenSource;
  apiVersion?: string;
}

/** The Admin API token of a store, as the client sends it: current, or renewed when it nears its end or is refused. */
export interface AccessTokenSource {
  /** The token to send now (renewed first when it ends within the margin). */
  current(): Promise<string>;
  /** Shopify answered 401 to `refused`: a renewed token to try once, or null when there is none to have. */
  renewAfterRefusal(refused: string): Promise<string | null>;
}

/**
 * A source's token rides to the fetch in this header, which puts it in `X-Shopify-Access-Token`:
 * the client's own headers win over a request's, and its token is fixed at creation.
 */
const TOKEN_OF_REQUEST = 'X-Bomcore-Access-Token';

export interface AdminApiOptions {
  /** Replaces `https://{domain}` (BOMCORE_SHOPIFY_ENDPOINT: the emulator in tests, a proxy). */
  endpoint?: string | null;
  /** Attempts for a passing failure (429, 5xx, network, timeout) before giving up. Default 5. */
  maxAttempts?: number;
  /** THROTTLED answers waited out before giving up. Default 10. */
  maxThrottleWaits?: number;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** First backoff delay; doubled per attempt, with full jitter, capped at 30 s. Default 500 ms. */
  backoffBaseMs?: number;
  pacer?: CostPacer;
  sleep?: (ms: number) => Promise<void>;
}

export class ShopifyApiError extends Error {
  /** A permanent failure will fail again unchanged: do not retry (a stuck push, a refused connect). */
  readonly permanent: boolean;
  readonly code: string;
  readonly status: number | null;

  constructor(message: string, details: { permanent: boolean; code: string; status?: number | null }) {
    super(message);
    this.name = 'ShopifyApiError';
    this.permanent = details.permanent;
    this.code = details.code;
    this.status = details.status ?? null;
  }
}

/** Shared by every client in the process: Shopify's bucket is per store, whoever asks. */
export const sharedCostPacer = new CostPacer();

// Not unref'd: the caller awaits it, and in a CLI process an unref'd timer alone would let Node exit mid-await.
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface GraphqlErrorShape { message: string; extensions?: { code?: string; [key: string]: unknown } }

export class ShopifyAdminApi {
  readonly domain: string;
  readonly apiVersion: string;
  readonly #client: AdminApiClient;
  readonly #token: AccessTokenSource | null;
  readonly #pacer: CostPacer;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #maxAttempts: number;
  readonly #maxThrottleWaits: number;
  readonly #backoffBaseMs: number;
  /** Last actual cost per operation name: the pacer's estimate of the next one. */
  readonly #lastCost = new Map<string, number>();

  constructor(store: ShopifyStore, options: AdminApiOptions = {}) {
    this.domain = store.domain;
    this.apiVersion = store.apiVersion ?? SHOPIFY_ADMIN_API_VERSION;
    this.#pacer = options.pacer ?? sharedCostPacer;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#maxThrottleWaits = options.maxThrottleWaits ?? 10;
    this.#backoffBaseMs = options.backoffBaseMs ?? 500;
    const timeoutMs = options.timeoutMs ?? 30_000;
    const endpoint = options.endpoint ? options.endpoint.replace(/\/+$/, '') : null;
    const origin = `https://${store.domain}`;
    this.#token = typeof store.accessToken === 'string' ? null : store.accessToken;
    this.#client = createAdminApiClient({
      storeDomain: store.domain,
      apiVersion: this.apiVersion,
      // A token source's token is set per request (it may be renewed between two); the client wants one to start.
      accessToken: typeof store.accessToken === 'string' ? store.accessToken : 'renewed-per-request',
      userAgentPrefix: 'bomcore',
      retries: 0,
      // The client always builds https://{domain}; the endpoint override swaps the origin only.
      customFetchApi: (url, init) => fetch(endpoint && url.startsWith(origin) ? endpoint + url.slice(origin.length) : url, {
        ...(init as RequestInit), headers: withRequestToken(init?.headers as Record<string, string> | undefined), signal: AbortSignal.timeout(timeoutMs),
      }),
    });
  }

  /** Runs one operation (a .graphql document's text) and returns its `data`; throws ShopifyApiError. */
  async request<T>(operation: string, variables: Record<string, unknown> = {}): Promise<T> {
    const name = operationName(operation);
    let attempts = 0;
    let throttleWaits = 0;
    let renewedAfterRefusal = false;
    for (;;) {
      // Renewed first when it is about to end; a refused renewal throws (REAUTHORIZE) before Shopify is asked.
      const token = this.#token ? await this.#token.current() : null;
      const expected = this.#lastCost.get(name) ?? (operation.trimStart().startsWith('mutation') ? 10 : 50);
      const delay = this.#pacer.delayFor(this.domain, expected);
      if (delay > 0) await this.#sleep(delay);
      attempts += 1;
      let response: Awaited<ReturnType<AdminApiClient['request']>>;
      try {
        response = await this.#client.request(operation, { variables, ...(token === null ? {} : { headers: { [TOKEN_OF_REQUEST]: token } }) });
      } catch (error) {
        // The client turns network failures into `errors`; a throw here is a bug of ours or theirs.
        throw new ShopifyApiError(`Shopify ${name}: ${(error as Error).message}`, { permanent: true, code: 'CLIENT_ERROR' });
      }
      const cost = response.extensions?.cost;
      const status = throttleStatus(cost?.throttleStatus);
      if (status) this.#pacer.observe(this.domain, status);
      if (typeof cost?.actualQueryCost === 'number') this.#lastCost.set(name, cost.actualQueryCost);
      else if (typeof cost?.requestedQueryCost === 'number') this.#lastCost.set(name, cost.requestedQueryCost);
      const errors = response.errors;
      if (!errors) return response.data as T;

      const graphqlErrors = (errors.graphQLErrors ?? []) as GraphqlErrorShape[];
      if (graphqlErrors.some((e) => e.extensions?.code === 'THROTTLED')) {
        throttleWaits += 1;
        if (throttleWaits > this.#maxThrottleWaits) {
          throw new ShopifyApiError(`Shopify ${name}: throttled ${throttleWaits} times in a row`, { permanent: false, code: 'THROTTLED' });
        }
        attempts -= 1; // a throttled request was not a failed attempt
        await this.#sleep(this.#pacer.throttled(this.domain, status, cost?.requestedQueryCost ?? expected));
        continue;
      }
      const failure = classify(name, errors.networkStatusCode ?? null, errors.message ?? '', graphqlErrors);
      // An expiring token refused before its time (revoked, or the clocks differ): renewed once, and the request sent again.
      if (failure.code === 'UNAUTHORIZED' && this.#token && token !== null && !renewedAfterRefusal) {
        renewedAfterRefusal = true;
        if ((await this.#token.renewAfterRefusal(token)) !== null) {
          attempts -= 1;
          continue;
        }
      }
      if (failure.permanent || attempts >= this.#maxAttempts) throw failure;
      const retryAfter = Number(errors.response?.headers.get('Retry-After'));
      await this.#sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : this.#backoff(attempts));
    }
  }

  /** Full-jitter exponential backoff: a random delay in [0, base·2^(attempt−1)], capped at 30 s. */
  #backoff(attempt: number): number {
    return Math.floor(Math.random() * Math.min(30_000, this.#backoffBaseMs * 2 ** (attempt - 1)));
  }
}

function withRequestToken(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers || headers[TOKEN_OF_REQUEST] === undefined) return headers;
  const { [TOKEN_OF_REQUEST]: token, ...rest } = headers;
  return { ...rest, 'X-Shopify-Access-Token': token };
}

function throttleStatus(raw: { maximumAvailable?: number; currentlyAvailable?: number; restoreRate?: number } | undefined): ThrottleStatus | null {
  if (!raw || typeof raw.maximumAvailable !== 'number' || typeof raw.currentlyAvailable !== 'number' || typeof raw.restoreRate !== 'number') return null;
  return { maximumAvailable: raw.maximumAvailable, currentlyAvailable: raw.currentlyAvailable, restoreRate: raw.restoreRate };
}

/** What an error answer means: passing (retry later) or permanent (stop and say why). */
function classify(name: string, status: number | null, message: string, graphqlErrors: GraphqlErrorShape[]): ShopifyApiError {
  if (graphqlErrors.length > 0) {
    const code = graphqlErrors[0]!.extensions?.code ?? 'GRAPHQL_ERROR';
    const text = graphqlErrors.map((e) => e.message).join('; ');
    const passing = code === 'INTERNAL_SERVER_ERROR' || code === 'SERVICE_UNAVAILABLE';
    return new ShopifyApiError(`Shopify ${name}: ${text}`, { permanent: !passing, code, status });
  }
  if (status === null) return new ShopifyApiError(`Shopify ${name}: ${message || 'network error'}`, { permanent: false, code: 'NETWORK', status });
  if (status === 401 || status === 403) {
    return new ShopifyApiError(`Shopify ${name}: HTTP ${status}: the access token was refused (revoked, or the app was uninstalled)`, { permanent: true, code: 'UNAUTHORIZED', status });
  }
  if (status === 402 || status === 404 || status === 423) {
    return new ShopifyApiError(`Shopify ${name}: HTTP ${status}: the store is unavailable (frozen, closed or locked)`, { permanent: true, code: 'STORE_UNAVAILABLE', status });
  }
  if (status === 429 || status >= 500) return new ShopifyApiError(`Shopify ${name}: HTTP ${status}`, { permanent: false, code: `HTTP_${status}`, status });
  return new ShopifyApiError(`Shopify ${name}: HTTP ${status} ${message}`, { permanent: true, code: `HTTP_${status}`, status });
}

function operationName(operation: string): string {
  const match = /^\s*(?:#.*\n\s*)*(?:query|mutation)\s+(\w+)/.exec(operation);
  if (match) return match[1]!;
  const definition = parse(operation).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return definition?.name?.value ?? 'anonymous';
}
