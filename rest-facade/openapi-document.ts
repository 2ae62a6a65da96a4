import { fastifySwagger } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { REST_PREFIX } from './contract.ts';
import { routeDataSchema } from './derive-schema.ts';
import { OPENAPI_ROUTE, SHARED_SCHEMAS, swaggerOptions } from './openapi.ts';
import { readOperationDocument } from './operation-document.ts';
import { facadeRouteSchema } from './route-schema.ts';
import { routes } from './routes/index.ts';

type Hook = (...args: any[]) => unknown;

/**
 * The OpenAPI document the server serves at `GET /api/v1/openapi.json`, built without a server:
 * @fastify/swagger (with the server's options, swaggerOptions) is handed the facade's routes as
 * Fastify hands them over (its `onRoute` hook, then `onReady` with the shared schemas), each with the
 * schema the server registers (facadeRouteSchema over the `data` derived from its stored operation).
 * No Fastify, no GraphQL compilation, no database: `bomcore print-openapi` needs only the GraphQL
 * schema. The routes the server adds besides (health, GraphQL, pages, the facade's 405 answers) are
 * hidden from the document (untagged or `hide`), so they are not handed over.
 * test/cli/root-script.test.ts checks the document printed is the document served.
 */
export async function openApiDocument(schema: GraphQLSchema): Promise<Record<string, unknown>> {
  const hooks = new Map<string, Hook[]>();
  let swagger: (() => Record<string, unknown>) | undefined;
  // The part of a Fastify instance @fastify/swagger uses (its dynamic mode: hooks, getSchemas, decorate).
  const host = {
    addHook: (name: string, hook: Hook) => hooks.set(name, [...(hooks.get(name) ?? []), hook]),
    getSchemas: () => Object.fromEntries(SHARED_SCHEMAS.map((s) => [s.$id, s])),
    decorate: (name: string, value: () => Record<string, unknown>) => {
      if (name === 'swagger') swagger = value;
    },
  };
  await new Promise<void>((resolve, reject) => fastifySwagger(host as unknown as FastifyInstance, swaggerOptions(), (error?: Error) => (error ? reject(error) : resolve())));
  const onRoute = hooks.get('onRoute') ?? [];
  const add = (route: { method: string; url: string; schema: object }) => {
    for (const hook of onRoute) hook({ ...route, url: `${REST_PREFIX}${route.url}`, prefix: REST_PREFIX, config: {} });
  };
  for (const route of routes) {
    const data = routeDataSchema(schema, route, readOperationDocument(route.operation).document);
    add({ method: route.method, url: route.url, schema: facadeRouteSchema(route, data) });
  }
  add(OPENAPI_ROUTE);
  for (const hook of hooks.get('onReady') ?? []) await new Promise<void>((resolve) => hook(resolve));
  if (!swagger) throw new Error('@fastify/swagger did not decorate the document function');
  return swagger();
}
