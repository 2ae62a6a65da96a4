import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../src/modules/auth/keys.ts';

export interface RouteInput {
  query: Record<string, unknown>;
  params: Record<string, string>;
  body: unknown;
}

/**
 * One REST route of the facade: its HTTP schemas (which also generate the OpenAPI document), the
 * stored GraphQL operation it runs, how variables are built and how `data` is shaped.
 */
export interface FacadeRoute {
  method: 'GET' | 'PATCH';
  url: string;
  scope: Scope;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  querystring?: TSchema;
  params?: TSchema;
  body?: TSchema;
  /** Schema of the envelope's `data`. */
  data: TSchema;
  /** The `.graphql` file beside the route, optionally followed by fragment files it uses. */
  operation: URL | readonly URL[];
  variables: (input: RouteInput, request: FastifyRequest) => Record<string, unknown>;
  toData: (result: Record<string, unknown>, input: RouteInput) => unknown;
  /** Problem statuses this route can answer besides the common ones (400, 401, 403, 405, 429, 500, 503). */
  extraProblems?: number[];
}

export function defineRoute(route: FacadeRoute): FacadeRoute {
  return route;
}
