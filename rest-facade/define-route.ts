import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../src/kernel/scopes.ts';
import type { DataOverrides } from './data-overrides.ts';

/** What a route's functions receive: the request as its schemas validated (and coerced) it. */
export interface RouteInput<Q = Record<string, unknown>, P = Record<string, string>, B = unknown> {
  query: Q;
  params: P;
  body: B;
}

/** The static type of a schema, or `Fallback` when the route has none. */
type Input<S extends TSchema | undefined, Fallback> = S extends TSchema ? Static<S> : Fallback;
type TypedInput<Q extends TSchema | undefined, P extends TSchema | undefined, B extends TSchema | undefined> =
  RouteInput<Input<Q, Record<string, unknown>>, Input<P, Record<string, string>>, Input<B, unknown>>;

/** A GraphQL result: untyped here; the `data` schema decides what reaches the client. */
export type GraphQLData = Record<string, any>;

/**
 * One REST route of the facade: its HTTP schemas (which also generate the OpenAPI document), the
 * stored GraphQL operation it runs, how variables are built and where `data` comes from.
 *
 * `data` is always converted from the GraphQL value through the derived `data` schema (derive-data.ts:
 * Decimal strings become numbers, objects keep the schema's properties, optional nulls are
 * omitted). The value converted is the operation's single root field by default, `dataField`
 * when the route names one, or what `toData` returns. A mutation's root field holds its payload's
 * result there: its `userErrors` were already turned into the route's problem (rest-facade/payloads.ts).
 */
export interface RouteDefinition<Q extends TSchema | undefined, P extends TSchema | undefined, B extends TSchema | undefined> {
  method: 'GET' | 'PATCH';
  url: string;
  scope: Scope;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  querystring?: Q;
  params?: P;
  body?: B;
  /**
   * `data` has no schema here: it is derived from the operation's selection over the GraphQL schema
   * (rest-facade/derive-schema.ts). These are what REST says of it that GraphQL cannot, keyed by REST path.
   */
  dataOverrides?: DataOverrides;
  /** The `.graphql` file beside the route, optionally followed by fragment files it uses. */
  operation: URL | readonly URL[];
  variables: (input: TypedInput<Q, P, B>, request: FastifyRequest) => Record<string, unknown>;
  /** The root field (response key) holding `data`; `null`: the whole result is `data` (e.g. `{ assignees }`). */
  dataField?: string | null;
  /**
   * Only where GraphQL cannot give the REST shape (say why at the route): builds, from the whole
   * result, the value then converted through `data` (Decimal strings may stay strings).
   */
  toData?: (result: GraphQLData, input: TypedInput<Q, P, B>) => unknown;
  /** Problem statuses this route can answer besides the common ones (400, 401, 403, 405, 429, 500, 503). */
  extraProblems?: number[];
  /**
   * The shop plan the operation needs (`x-plan` on the operation; its 403 names PLAN_REQUIRED). The
   * service behind the operation refuses it on a shop of another plan; this documents it.
   */
  plan?: 'enhanced';
}

/** A route as the facade holds it, its input types erased. */
export type FacadeRoute = RouteDefinition<TSchema | undefined, TSchema | undefined, TSchema | undefined> & {
  variables: (input: RouteInput<any, any, any>, request: FastifyRequest) => Record<string, unknown>;
  toData?: (result: GraphQLData, input: RouteInput<any, any, any>) => unknown;
};

/**
 * Types a route's `variables` and `toData` input from its `querystring`, `params` and `body`
 * schemas. Fastify validated the request against those schemas before either runs.
 */
export function defineRoute<Q extends TSchema | undefined = undefined, P extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  route: RouteDefinition<Q, P, B>,
): FacadeRoute {
  // Sound: the facade calls these functions only with input its schemas validated.
  return route as unknown as FacadeRoute;
}
