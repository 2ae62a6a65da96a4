import { Kind, parse, TypeInfo, validate, visit, visitWithTypeInfo, type OperationDefinitionNode } from 'graphql';
import { describe, expect, test } from 'vitest';
import { ADMIN_SCHEMA_SOURCE, readAdminSchemaFile, shopifyAdminSchema } from '../../src/platform/shopify/admin-schema/index.ts';
import { BULK_QUERIES, FRAGMENTS, REQUEST_OPERATIONS, bulkQuery, requestOperation, type BulkQueryName, type RequestOperationName } from '../../src/platform/shopify/operations.ts';

describe('Shopify Admin operations', () => {
  test('the vendored Admin schema is the published one: its sha256 is the pinned hash of @shopify/dev-mcp@1.16.0 admin_2026-10.json.gz', () => {
    expect(readAdminSchemaFile().sha256).toBe(ADMIN_SCHEMA_SOURCE.sha256);
    expect(shopifyAdminSchema().getMutationType()?.name).toBe('Mutation');
  });

  const all = [...[...REQUEST_OPERATIONS].map(([name, text]) => ({ kind: 'operations', name, text })), ...[...BULK_QUERIES].map(([name, text]) => ({ kind: 'bulk', name, text }))];

  test('the adapter sends operations: both folders hold .graphql files', () => {
    expect(REQUEST_OPERATIONS.size).toBeGreaterThanOrEqual(7);
    expect(BULK_QUERIES.size).toBeGreaterThanOrEqual(2);
  });

  test.each(all)('$kind/$name.graphql is valid against Shopify Admin 2026-10 (a field or argument Shopify does not have fails here)', ({ text }) => {
    const errors = validate(shopifyAdminSchema(), parse(text));
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  test.each(all)('$kind/$name.graphql holds exactly one named operation and uses no deprecated field', ({ text }) => {
    const document = parse(text);
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations).toHaveLength(1);
    expect(operations[0]!.name?.value).toMatch(/^[A-Z]\w+$/);
    const deprecated = deprecatedFields(text);
    expect(deprecated).toEqual([]);
  });

  test('every shared fragment is spread by some request operation, and a request carries each fragment it spreads once', () => {
    expect(FRAGMENTS.size).toBeGreaterThanOrEqual(2);
    for (const name of FRAGMENTS.keys()) {
      const users = [...REQUEST_OPERATIONS.values()].filter((text) => text.includes(`...${name}`));
      expect(users.length, `fragment ${name} is spread by no operation`).toBeGreaterThan(0);
      for (const text of users) expect(text.split(`fragment ${name} on`).length - 1).toBe(1);
    }
  });

  test('bulk queries are queries (bulkOperationRunQuery takes no mutation) and request operations name a known file', () => {
    for (const text of BULK_QUERIES.values()) expect(parse(text).definitions[0]).toMatchObject({ operation: 'query' });
    const names: RequestOperationName[] = ['shop-access', 'locations', 'bulk-operation-run', 'bulk-operation-status', 'inventory-adjust', 'metafields-set', 'webhook-subscription-create',
      'reconcile-products', 'product-variants', 'reconcile-levels', 'reconcile-orders', 'order-line-items', 'order-history'];
    for (const name of names) expect(requestOperation(name)).toContain(' ');
    const bulk: BulkQueryName[] = ['variants', 'open-orders'];
    for (const name of bulk) expect(bulkQuery(name)).toContain('edges');
  });
});

/** Deprecated fields a document selects, found with graphql-js's TypeInfo walk. */
function deprecatedFields(text: string): string[] {
  const found: string[] = [];
  const typeInfo = new TypeInfo(shopifyAdminSchema());
  visit(parse(text), visitWithTypeInfo(typeInfo, {
    Field() {
      const def = typeInfo.getFieldDef();
      const parent = typeInfo.getParentType();
      if (def?.deprecationReason) found.push(`${parent?.name}.${def.name}: ${def.deprecationReason}`);
    },
  }));
  return found;
}
