import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../../src/app/database.ts';

// Runs on its own in-memory PGlite whatever DATABASE_URL says: migrating a shared PostgreSQL
// database down and up would drop tables under the other test files.
let orm: Orm;
beforeAll(async () => {
  orm = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
  await orm.migrator.up({ to: 'Migration20261205190000' });
});
afterAll(() => orm.close());

/** The rows, figures as numbers (the levels' scale is theirs: 7 and 7.000000 are one quantity). */
const quantities = async () => (await orm.em.fork().execute<{ shop_id: string; variant_id: string; level_total: string; platform: string | null; quantity: string }[]>(`select shop_id, variant_id, level_total::text as level_total, platform_quantity::text as platform,
  inventory_quantity::text as quantity from material_quantities order by shop_id, variant_id`)).map((r) => ({
  ...r, level_total: Number(r.level_total), platform: r.platform === null ? null : Number(r.platform), quantity: Number(r.quantity),
}));

describe('the material quantities migration: the stored quantity moves to its own row', () => {
  it('carries every material\'s stored quantity over exactly (both origins, archived ones, levels without their material), and back down', async () => {
    const em = orm.em.fork();
    await em.execute(`insert into material_levels (shop_id, variant_id, location_id, available) values
      ('s1', 'VMAT-A', 'L1', 2.5), ('s1', 'VMAT-A', 'L2', 0.000001), ('s1', 'VMAT-Z', 'L1', 4), ('s1', 'VMAT-GONE', 'L1', 7)`);
    await em.execute(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, cached_quantity, archived_at, updated_at) values
      ('s1', '101', 'platform', 'P1', 'I1', 'Linked', 4.25, null, now()), ('s1', '102', 'platform', 'P2', 'I2', 'No total', null, null, now()),
      ('s1', 'VMAT-A', 'virtual', 'P', 'I', 'Levels', null, null, now()), ('s1', 'VMAT-B', 'virtual', 'P', 'I', 'None', null, null, now()),
      ('s1', 'VMAT-Z', 'virtual', 'P', 'I', 'Archived', null, now(), now())`);
    const before = await em.execute(`select variant_id, inventory_quantity::text as q from materials order by variant_id`);
    await orm.migrator.up();
    expect(await quantities()).toEqual([
      { shop_id: 's1', variant_id: '101', level_total: 0, platform: 4.25, quantity: 4.25 },
      { shop_id: 's1', variant_id: '102', level_total: 0, platform: 0, quantity: 0 },
      { shop_id: 's1', variant_id: 'VMAT-A', level_total: 2.500001, platform: null, quantity: 2.500001 },
      { shop_id: 's1', variant_id: 'VMAT-B', level_total: 0, platform: null, quantity: 0 },
      { shop_id: 's1', variant_id: 'VMAT-GONE', level_total: 7, platform: null, quantity: 7 },
      { shop_id: 's1', variant_id: 'VMAT-Z', level_total: 4, platform: null, quantity: 4 },
    ]);
    const after = await em.execute(`select m.variant_id, q.inventory_quantity::text as q from materials m
      join material_quantities q on q.shop_id = m.shop_id and q.variant_id = m.variant_id order by m.variant_id`);
    expect(after.map((r) => [r.variant_id, Number(r.q)])).toEqual(before.map((r) => [r.variant_id, Number(r.q)]));
    // A level moved after the migration, then the way back: the wide row's copy is rebuilt from the narrow one.
    await em.execute(`update material_levels set available = available + 1 where variant_id = 'VMAT-A' and location_id = 'L1'`);
    await orm.migrator.down({ to: 'Migration20261205190000' });
    const down = await em.execute(`select variant_id, inventory_quantity::text as q from materials order by variant_id`);
    expect(down.map((r) => [r.variant_id, Number(r.q)])).toEqual(before.map((r) => [r.variant_id, Number(r.q) + (r.variant_id === 'VMAT-A' ? 1 : 0)]));
    await em.execute(`update material_levels set available = available - 1 where variant_id = 'VMAT-A' and location_id = 'L1'`);
    await orm.migrator.up();
    expect((await quantities()).find((r) => r.variant_id === 'VMAT-A')).toMatchObject({ quantity: 2.500001 });
  });
});
