import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { compileDataConverter } from '../../rest-facade/derive-data.ts';
import { NullableNumber, NullableString } from '../../rest-facade/schema-helpers.ts';

const obj = (properties: Parameters<typeof Type.Object>[0]) => Type.Object(properties, { additionalProperties: false });

describe('REST data derived from the data schema', () => {
  it('turns Decimal strings at number positions into numbers rounded half-up to 6 places, exactly', () => {
    const convert = compileDataConverter(obj({ a: Type.Number(), b: Type.Integer(), c: NullableNumber(), d: NullableNumber(), s: Type.String() }));
    expect(convert({ a: '1.0000005', b: 3, c: '0.1234565', d: null, s: '2.5' })).toEqual({ a: 1.000001, b: 3, c: 0.123457, d: null, s: '2.5' });
    expect(convert({ a: '12345678901234.5', b: '7', c: '-0', d: '100', s: 'x' })).toEqual({ a: 12345678901234.5, b: 7, c: 0, d: 100, s: 'x' });
  });

  it('keeps only the properties the schema lists, in schema order', () => {
    const convert = compileDataConverter(obj({ z: Type.String(), a: Type.String() }));
    const out = convert({ a: 'A', extra: 1, z: 'Z' });
    expect(Object.keys(out as object)).toEqual(['z', 'a']);
  });

  it('omits an optional property whose value is null or missing; keeps null where the schema allows it', () => {
    const convert = compileDataConverter(obj({
      name: Type.Optional(Type.String()), note: NullableString(), maybe: Type.Optional(NullableString()), n: Type.Optional(Type.Number()),
    }));
    expect(convert({ name: null, note: null, maybe: null })).toEqual({ note: null, maybe: null });
    expect(convert({ name: 'x', note: 'y', n: '1.5' })).toEqual({ name: 'x', note: 'y', n: 1.5 });
    expect('name' in (convert({ note: null }) as object)).toBe(false);
  });

  it('maps arrays, converts nullable object unions and passes literal unions through', () => {
    const convert = compileDataConverter(obj({
      rows: Type.Array(obj({ q: Type.Number(), kind: Type.Union([Type.Literal('a'), Type.Literal('b')]) })),
      node: Type.Union([obj({ cost: Type.Number() }), Type.Null()]),
      total: Type.Union([Type.Number(), Type.Null()]),
    }));
    expect(convert({ rows: [{ q: '2.25', kind: 'a', x: 1 }], node: { cost: '3', y: 2 }, total: '4.5' }))
      .toEqual({ rows: [{ q: 2.25, kind: 'a' }], node: { cost: 3 }, total: 4.5 });
    expect(convert({ rows: [], node: null, total: null })).toEqual({ rows: [], node: null, total: null });
  });

  it('follows Type.Recursive to any depth', () => {
    const Tree = Type.Recursive((Self) => obj({ q: Type.Number(), children: Type.Array(Self) }), { $id: 'ProbeTree' });
    const convert = compileDataConverter(obj({ tree: Tree }));
    expect(convert({ tree: { q: '1', children: [{ q: '2', children: [{ q: '3', children: [], x: 0 }] }] } }))
      .toEqual({ tree: { q: 1, children: [{ q: 2, children: [{ q: 3, children: [] }] }] } });
  });

  it('refuses at start-up what it cannot follow: Type.Ref, allOf, ambiguous object unions', () => {
    expect(() => compileDataConverter(obj({ meta: Type.Ref('Meta') }))).toThrow(/Type\.Ref/);
    expect(() => compileDataConverter(Type.Intersect([obj({ a: Type.Number() }), obj({ b: Type.Number() })]))).toThrow(/allOf/);
    expect(() => compileDataConverter(Type.Union([obj({ a: Type.Number() }), obj({ b: Type.Number() })]))).toThrow(/several object members/);
  });
});
