import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { preparedSql, sqlBuilder } from '../../src/db/typed-sql.ts';

interface Tables { items: { shop_id: string; item_id: string; owner_type: string } }
const db = sqlBuilder<Tables>();

// Rule: a prepared statement (src/db/typed-sql.ts preparedSql) is built once per shape and answers
// exactly what building it anew would: the same SQL text and the same parameters, the values in
// their places and the builder's own constants kept; a value the builder does not use as a plain
// parameter is refused rather than frozen into the template.
describe('preparedSql: built once per shape, the same statement as building it anew', () => {
  const build = (shape: 'one' | 'many', shopId: string, ids: string) => {
    const q = db.selectFrom('items').select(['item_id']).where('shop_id', '=', shopId).where('owner_type', 'in', ['bom', 'sub_assembly']);
    return shape === 'one' ? q.where('item_id', '=', ids) : q.where(sql<boolean>`item_id = any(${ids}::text[])`).where('shop_id', '=', shopId);
  };

  it('puts each call\'s values where the builder used them, keeps its constants, and builds each shape once', () => {
    let builds = 0;
    const prepared = preparedSql((shape: 'one' | 'many', shopId: string, ids: string) => {
      builds += 1;
      return build(shape, shopId, ids);
    });
    for (const [shape, shopId, ids] of [['one', 's1', 'a'], ['many', 's2', '{a,b}'], ['one', 's3', 'c'], ['many', 's4', '{"x y"}']] as const) {
      const fresh = build(shape, shopId, ids).compile();
      const got = prepared(shape, shopId, ids).compile();
      expect(got.sql).toBe(fresh.sql);
      expect(got.parameters).toEqual(fresh.parameters);
    }
    expect(builds).toBe(2);
  });

  it('refuses a value written into the SQL text or folded into another parameter', () => {
    const intoText = preparedSql((_shape: 'x', table: string) => db.selectFrom('items').select(sql.raw<string>(table).as('t')));
    expect(() => intoText('x', 'items').compile()).toThrow(/written into the SQL text/);
    const folded = preparedSql((_shape: 'x', id: string) => db.selectFrom('items').select('item_id').where('item_id', '=', `${id}-suffix`));
    expect(() => folded('x', 'a').compile()).toThrow(/inside another parameter/);
  });
});
