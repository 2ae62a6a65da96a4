import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

/** The Admin API version every operation of the adapter is written and validated against. */
export const SHOPIFY_ADMIN_API_VERSION = '2026-10';

/**
 * Shopify's published introspection of the Admin GraphQL API 2026-10, as the npm package
 * `@shopify/dev-mcp@1.16.0` ships it (`dist/data/admin_2026-10.json.gz`), copied byte for byte.
 * The sha256 pins the copy: `npm run shopify:schema -- --check` fetches the package again and
 * compares, and the operations test refuses a file whose hash differs.
 */
export const ADMIN_SCHEMA_SOURCE = {
  package: '@shopify/dev-mcp',
  version: '1.16.0',
  file: 'dist/data/admin_2026-10.json.gz',
  sha256: 'f3b522f264556925eada700e795e4a002a9cba83444ebcc6c0d724254a0c6593',
} as const;

export const ADMIN_SCHEMA_FILE = new URL('./admin-2026-10.json.gz', import.meta.url);

let cached: GraphQLSchema | undefined;

/** The raw gzipped introspection and its sha256. */
export function readAdminSchemaFile(): { bytes: Buffer; sha256: string } {
  const bytes = readFileSync(ADMIN_SCHEMA_FILE);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Shopify's Admin schema (2026-10) as a graphql-js schema; built once per process (~0.5 s). */
export function shopifyAdminSchema(): GraphQLSchema {
  if (cached) return cached;
  const { bytes, sha256 } = readAdminSchemaFile();
  if (sha256 !== ADMIN_SCHEMA_SOURCE.sha256) {
    throw new Error(`${ADMIN_SCHEMA_FILE.pathname}: sha256 ${sha256} is not the pinned ${ADMIN_SCHEMA_SOURCE.sha256} of ${ADMIN_SCHEMA_SOURCE.package}@${ADMIN_SCHEMA_SOURCE.version}`);
  }
  const introspection = JSON.parse(gunzipSync(bytes).toString('utf8')) as { data: IntrospectionQuery };
  cached = buildClientSchema(introspection.data, { assumeValid: false });
  return cached;
}
