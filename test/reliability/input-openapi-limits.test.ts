import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule: every string a client can send to REST (query, path, body) has a documented maxLength,
// and every array a maxItems, in the OpenAPI document (so a new field cannot forget one).
// Enumerations and constants are bounded by their values.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

type Schema = Record<string, any>;

function unbounded(schema: Schema | undefined, path: string, out: string[], doc: Schema): void {
  if (!schema || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') return unbounded(doc.components?.schemas?.[schema.$ref.split('/').pop()!], path, out, doc);
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(schema[k])) schema[k].forEach((s: Schema) => unbounded(s, path, out, doc));
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string') && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) out.push(`${path}: string without maxLength`);
  if (types.includes('array')) {
    if (schema.maxItems === undefined) out.push(`${path}: array without maxItems`);
    unbounded(schema.items, `${path}[]`, out, doc);
  }
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) unbounded(property, `${path}.${name}`, out, doc);
}

describe('the OpenAPI document bounds every request string and array', () => {
  const inputs = (): [string, Schema][] => {
    const doc = t.app.swagger() as Schema;
    const list: [string, Schema][] = [];
    for (const [path, operations] of Object.entries<Schema>(doc.paths)) {
      for (const [method, operation] of Object.entries<Schema>(operations)) {
        for (const parameter of operation.parameters ?? []) list.push([`${method.toUpperCase()} ${path} ${parameter.in} ${parameter.name}`, parameter.schema]);
        const body = operation.requestBody?.content?.['application/json']?.schema;
        if (body) list.push([`${method.toUpperCase()} ${path} body`, body]);
      }
    }
    return list;
  };

  it('has request inputs to check (the table below is not empty)', () => {
    expect(inputs().length).toBeGreaterThan(40);
  });

  it('every request string has maxLength and every request array maxItems', () => {
    const doc = t.app.swagger() as Schema;
    const problems: string[] = [];
    for (const [where, schema] of inputs()) unbounded(schema, where, problems, doc);
    expect(problems).toEqual([]);
  });

  it('the check itself catches an unbounded string and array', () => {
    const problems: string[] = [];
    unbounded({ type: 'object', properties: { a: { type: 'string' }, b: { type: ['array', 'null'], items: { type: 'string', maxLength: 1 } }, c: { type: 'string', enum: ['x'] } } }, 'x', problems, {});
    expect(problems).toEqual(['x.a: string without maxLength', 'x.b: array without maxItems']);
  });
});
