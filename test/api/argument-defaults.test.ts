import { Type } from '@sinclair/typebox';
import { parse, type OperationDefinitionNode } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withArgDefaults } from '../../rest-facade/graphql-enums.ts';
import { routes } from '../../rest-facade/routes/index.ts';
import { getSchema } from '../../schema/index.ts';

// Defaults are said once: a list's default (page size, filter, sort direction) is the GraphQL
// argument's `defaultValue`, and a REST query parameter of the same name states that value in the
// OpenAPI document and applies it (withArgDefaults), instead of writing its own.

/** The root field a route's stored operation calls, and the variable each argument takes. */
function rootFieldOf(operation: URL | readonly URL[]): { field: string; argsFromVariables: Map<string, string> } {
  const files = (Array.isArray(operation) ? operation : [operation]) as URL[];
  const document = parse(files.map((f) => readFileSync(f, 'utf8')).join('\n'));
  const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  const root = op.selectionSet.selections[0]!;
  if (root.kind !== 'Field') throw new Error('root selection is not a field');
  const argsFromVariables = new Map<string, string>();
  for (const arg of root.arguments ?? []) if (arg.value.kind === 'Variable') argsFromVariables.set(arg.value.name.value, arg.name.value);
  return { field: root.name.value, argsFromVariables };
}

describe('defaults are the GraphQL arguments\' own', () => {
  const queryFields = getSchema().getQueryType()!.getFields();

  it('every REST query parameter that feeds a GraphQL argument with a default states exactly that default', () => {
    let checked = 0;
    for (const route of routes.filter((r) => r.method === 'GET' && r.querystring)) {
      const { field, argsFromVariables } = rootFieldOf(route.operation);
      const properties = (route.querystring as unknown as { properties: Record<string, { default?: unknown }> }).properties;
      for (const [name, schema] of Object.entries(properties)) {
        const arg = queryFields[field]?.args.find((a) => a.name === (argsFromVariables.get(name) ?? name));
        if (arg?.defaultValue === undefined) continue;
        expect([route.operationId, name, schema.default]).toEqual([route.operationId, name, arg.defaultValue]);
        checked += 1;
      }
    }
    // rawMaterials (5), boms (4), workOrders (2), billVersions (2) at least.
    expect(checked).toBeGreaterThanOrEqual(13);
  });

  it('the list defaults are the documented ones: page 1, 50 rows, filters all, ascending', () => {
    const defaults = (field: string) => Object.fromEntries(queryFields[field]!.args.filter((a) => a.defaultValue !== undefined).map((a) => [a.name, a.defaultValue]));
    expect(defaults('rawMaterials')).toEqual({ usageFilter: 'all', originFilter: 'all', sortOrder: 'asc', page: 1, pageSize: 50 });
    expect(defaults('boms')).toEqual({ statusFilter: 'all', sortOrder: 'asc', page: 1, pageSize: 50 });
    expect(defaults('billVersions')).toEqual({ limit: 10, offset: 0 });
  });

  it('a REST schema restating a default is refused at start-up', () => {
    expect(() => withArgDefaults('rawMaterials', Type.Object({ pageSize: Type.Integer({ default: 20 }) }))).toThrow(/do not restate it/);
  });
});
