// The /graphql twin of a REST read: the stored operation the route runs (its .graphql files, as
// the facade joins them) with the variables the route builds from the same URL, so the two sides
// of the comparison execute the identical GraphQL document.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { routes } from '../rest-facade/routes/index.ts';
import type { FacadeRoute } from '../rest-facade/define-route.ts';
import { listParameters, listValidationSchema, splitListParameters } from '../src/http/requests/query-lists.ts';

// Query strings are coerced and defaulted as the facade's validator does (src/http/requests/validators.ts).
const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: true, strict: false, coerceTypes: 'array' });

function matchRoute(method: string, pathname: string): { route: FacadeRoute; params: Record<string, string> } {
  for (const route of routes) {
    if (route.method !== method) continue;
    const names: string[] = [];
    const pattern = route.url.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const match = new RegExp(`^/api/v1${pattern}$`).exec(pathname);
    if (match) return { route, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])) };
  }
  throw new Error(`no facade route for ${method} ${pathname}`);
}

function queryObject(search: URLSearchParams): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

export interface GraphqlBody {
  operationName: string | undefined;
  query: string;
  variables: Record<string, unknown>;
}

/** The GraphQL request equivalent to `GET path` on the facade. */
export function graphqlTwin(method: 'GET', path: string): GraphqlBody {
  const url = new URL(path, 'http://bench.invalid');
  const { route, params } = matchRoute(method, url.pathname);
  const query = queryObject(url.searchParams);
  // As the server's validator does: list parameters split on commas, items checked one by one.
  const listProblem = splitListParameters(query, listParameters(route.querystring));
  if (listProblem) throw new Error(`${path}: ${listProblem.name}: ${listProblem.message}`);
  if (route.querystring && !ajv.validate(listValidationSchema(route.querystring as Record<string, unknown>), query)) {
    throw new Error(`${path}: the query string does not validate: ${ajv.errorsText()}`);
  }
  const variables = route.variables({ query, params, body: undefined }, {} as FastifyRequest);
  const files = Array.isArray(route.operation) ? route.operation : [route.operation as URL];
  const text = files.map((file) => readFileSync(file, 'utf8')).join('\n');
  const operationName = /^\s*query\s+([A-Za-z_][A-Za-z0-9_]*)/m.exec(text)?.[1];
  return { operationName, query: text, variables };
}
