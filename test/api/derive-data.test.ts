import SchemaBuilder from '@pothos/core';
import { Type } from '@sinclair/typebox';
import { parse, validate, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compileDataConverter } from '../../rest-facade/derive-data.ts';
import { deriveDataSchema, routeDataSchema } from '../../rest-facade/derive-schema.ts';
import { loadOperation } from '../../rest-facade/operations.ts';
import { routes } from '../../rest-facade/routes/index.ts';
import { getSchema } from '../../schema/index.ts';
import { NullableNumber, NullableString } from '../../rest-facade/schema-helpers.ts';

const obj = (properties: Parameters<typeof Type.Object>[0]) => Type.Object(properties, { additionalProperties: false });
/** The converter as a client sees it: its result written by JSON.stringify (as the facade does) and read back. */
const written = (convert: (value: unknown) => unknown) => (value: unknown): unknown => JSON.parse(JSON.stringify(convert(value)));

describe('REST data derived from the data schema', () => {
  it('turns Decimal strings at number positions into JSON numbers written from the exact text, rounded half-up to 6 places', () => {
    const convert = compileDataConverter(obj({ a: Type.Number(), b: Type.Integer(), c: NullableNumber(), d: NullableNumber(), s: Type.String() }));
    expect(JSON.stringify(convert({ a: '1.0000005', b: 3, c: '0.1234565', d: null, s: '2.5' }))).toBe('{"a":1.000001,"b":3,"c":0.123457,"d":null,"s":"2.5"}');
    expect(JSON.stringify(convert({ a: '12345678901234.5', b: '7', c: '-0', d: '100', s: 'x' }))).toBe('{"a":12345678901234.5,"b":7,"c":0,"d":100,"s":"x"}');
    // Beyond what a double holds (20 significant digits): digit for digit, never through Number.
    expect(JSON.stringify(convert({ a: '99999999999999.999999', b: 0, c: '-99999999999999.9999995', d: '0.0000005', s: '' })))
      .toBe('{"a":99999999999999.999999,"b":0,"c":-100000000000000,"d":0.000001,"s":""}');
  });

  it('refuses an answer that lacks a required property (the serializer did before answers were written by JSON.stringify)', () => {
    const convert = compileDataConverter(obj({ a: Type.Number(), b: Type.Optional(Type.Number()) }));
    expect(() => convert({ b: '1' })).toThrow(/data\.a is required/);
    expect(JSON.stringify(convert({ a: '1' }))).toBe('{"a":1}');
  });

  it('keeps only the properties the schema lists, in schema order', () => {
    const convert = compileDataConverter(obj({ z: Type.String(), a: Type.String() }));
    const out = convert({ a: 'A', extra: 1, z: 'Z' });
    expect(Object.keys(out as object)).toEqual(['z', 'a']);
  });

  it('omits an optional property whose value is null or missing; keeps null where the schema allows it', () => {
    const convert = written(compileDataConverter(obj({
      name: Type.Optional(Type.String()), note: NullableString(), maybe: Type.Optional(NullableString()), n: Type.Optional(Type.Number()),
    })));
    expect(convert({ name: null, note: null, maybe: null })).toEqual({ note: null, maybe: null });
    expect(convert({ name: 'x', note: 'y', n: '1.5' })).toEqual({ name: 'x', note: 'y', n: 1.5 });
    expect('name' in (convert({ note: null }) as object)).toBe(false);
  });

  it('converts an object alike whether every property is present (compiled straight-line code) or one is omitted (the loop)', () => {
    const convert = compileDataConverter(obj({ z: Type.String(), '1': Type.String(), 'say "x"': Type.Number(), opt: Type.Optional(Type.String()), none: Type.Optional(Type.String()) }));
    expect(JSON.stringify(convert({ opt: 'o', none: 'n', 'say "x"': '2.50', '1': 'one', z: 'Z', extra: true }))).toBe('{"1":"one","z":"Z","say \\"x\\"":2.5,"opt":"o","none":"n"}');
    expect(JSON.stringify(convert({ none: null, 'say "x"': '2.50', '1': 'one', z: 'Z' }))).toBe('{"1":"one","z":"Z","say \\"x\\"":2.5}');
    expect(() => convert({ '1': 'one', 'say "x"': '1' })).toThrow(/data\.z is required/);
    expect(convert(null)).toBeNull();
  });

  it('maps arrays, converts nullable object unions and passes literal unions through', () => {
    const convert = written(compileDataConverter(obj({
      rows: Type.Array(obj({ q: Type.Number(), kind: Type.Union([Type.Literal('a'), Type.Literal('b')]) })),
      node: Type.Union([obj({ cost: Type.Number() }), Type.Null()]),
      total: Type.Union([Type.Number(), Type.Null()]),
    })));
    expect(convert({ rows: [{ q: '2.25', kind: 'a', x: 1 }], node: { cost: '3', y: 2 }, total: '4.5' }))
      .toEqual({ rows: [{ q: 2.25, kind: 'a' }], node: { cost: 3 }, total: 4.5 });
    expect(convert({ rows: [], node: null, total: null })).toEqual({ rows: [], node: null, total: null });
  });

  it('follows Type.Recursive to any depth', () => {
    const Tree = Type.Recursive((Self) => obj({ q: Type.Number(), children: Type.Array(Self) }), { $id: 'ProbeTree' });
    const convert = written(compileDataConverter(obj({ tree: Tree })));
    expect(convert({ tree: { q: '1', children: [{ q: '2', children: [{ q: '3', children: [], x: 0 }] }] } }))
      .toEqual({ tree: { q: 1, children: [{ q: 2, children: [{ q: 3, children: [] }] }] } });
  });

  it('refuses at start-up what it cannot follow: Type.Ref, allOf, ambiguous object unions', () => {
    expect(() => compileDataConverter(obj({ meta: Type.Ref('Meta') }))).toThrow(/Type\.Ref/);
    expect(() => compileDataConverter(Type.Intersect([obj({ a: Type.Number() }), obj({ b: Type.Number() })]))).toThrow(/allOf/);
    expect(() => compileDataConverter(Type.Union([obj({ a: Type.Number() }), obj({ b: Type.Number() })]))).toThrow(/several object members/);
  });
});

// Rule (issue 19 item 2): a REST response field is declared once. Adding a Pothos field and selecting
// it in the route's .graphql makes it appear in the route's `data` schema — the schema the OpenAPI
// document embeds (as `<Operation>Data`) and Fastify serializes with — and in the response, with
// no TypeBox schema to restate it.
describe('a REST response field is declared once: adding a Pothos field + selecting it in the route\'s .graphql makes it appear in the OpenAPI document and in the response', () => {
  interface Material { id: string; cost: string; note: string | null; tags: string[] }
  const row: Material = { id: 'm1', cost: '1.2500005', note: null, tags: ['oak'] };

  /** A tiny Pothos schema; `withNote` adds one field, as a developer would. */
  function tinySchema(withNote: boolean): GraphQLSchema {
    // No plugin: the options type, widened by the app's plugins (scope auth…), does not apply here.
    const builder = new SchemaBuilder<{ Scalars: { Decimal: { Input: string; Output: string } } }>({} as never);
    builder.scalarType('Decimal', { serialize: (v) => String(v), parseValue: (v) => String(v) });
    const MaterialRef = builder.objectRef<Material>('Material').implement({
      description: 'A material.',
      fields: (t) => ({
        id: t.exposeID('id', { nullable: false }),
        cost: t.expose('cost', { type: 'Decimal', nullable: false, description: 'Unit cost.' }),
        tags: t.exposeStringList('tags', { nullable: false }),
        ...(withNote ? { note: t.exposeString('note', { nullable: true, description: 'A free note.' }) } : {}),
      }),
    });
    builder.queryType({ fields: (t) => ({ material: t.field({ type: MaterialRef, nullable: false, resolve: () => row }) }) });
    return builder.toSchema();
  }

  it('derives data from the selection and the field types: non-null required, nullable null, Decimal a number, descriptions from GraphQL', () => {
    const schema = tinySchema(false);
    const data = deriveDataSchema(schema, parse('query { material { id cost tags } }')) as Record<string, any>;
    expect(data).toMatchObject({
      type: 'object', additionalProperties: false, description: 'A material.', required: ['id', 'cost', 'tags'],
      properties: { id: { type: 'string' }, cost: { type: 'number', description: 'Unit cost.' }, tags: { type: 'array', items: { type: 'string' } } },
    });
    expect(written(compileDataConverter(data as never))(row)).toEqual({ id: 'm1', cost: 1.250001, tags: ['oak'] });
  });

  it('one Pothos field and one selection: the field is in data\'s schema and in the response; no other declaration', () => {
    const operation = parse('query { material { id cost tags note } }');
    expect(validate(tinySchema(false), operation).map((e) => e.message)).toEqual(['Cannot query field "note" on type "Material".']);
    const schema = tinySchema(true);
    expect(validate(schema, operation)).toEqual([]);
    const data = deriveDataSchema(schema, operation) as Record<string, any>;
    expect(Object.keys(data.properties)).toEqual(['id', 'cost', 'tags', 'note']);
    expect(data.properties.note).toEqual({ type: ['string', 'null'], description: 'A free note.' });
    expect(data.required).toEqual(['id', 'cost', 'tags', 'note']);
    expect(written(compileDataConverter(data as never))({ ...row, note: 'kiln-dried' })).toEqual({ id: 'm1', cost: 1.250001, tags: ['oak'], note: 'kiln-dried' });
  });

  it('REST-only facts are small overrides keyed by the REST path: a title, a bound, an optional field, a toData addition', () => {
    const data = deriveDataSchema(tinySchema(true), parse('query { material { id cost tags note } }'), {
      overrides: { '': { title: 'TinyMaterial' }, tags: { maxItems: 3 }, note: { optional: true }, cost: { minimum: 0 } },
    }) as Record<string, any>;
    expect(data.title).toBe('TinyMaterial');
    expect(data.properties.tags.maxItems).toBe(3);
    expect(data.properties.cost.minimum).toBe(0);
    expect(data.properties.note).toEqual({ type: 'string', description: 'A free note.' });
    expect(data.required).toEqual(['id', 'cost', 'tags']);
    expect(written(compileDataConverter(data as never))(row)).toEqual({ id: 'm1', cost: 1.250001, tags: ['oak'] });
    expect(() => deriveDataSchema(tinySchema(true), parse('query { material { id } }'), { overrides: { nope: { minimum: 0 } } })).toThrow(/nope/);
  });

  it('every route of the facade derives its data (the served document is built from these)', () => {
    const schema = getSchema();
    for (const route of routes) {
      const data = routeDataSchema(schema, route, loadOperation(schema, route.operation).document) as Record<string, any>;
      expect(data.type, `${route.method} ${route.url}`).toBe('object');
      expect(data.additionalProperties, `${route.method} ${route.url}`).toBe(false);
    }
  });
});
