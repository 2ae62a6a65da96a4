import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/app/database.ts';
import { migrationsList } from '../../migrations/index.ts';
import { usingPostgres } from '../helpers/database.ts';

// Rule (docs/deployment.md): several instances may start at once on one unmigrated PostgreSQL
// database; one applies the migrations, the others wait for it and find nothing pending.
describe.runIf(usingPostgres)('migrations from several instances at once (PostgreSQL)', () => {
  it('three processes migrating one fresh database at once: all succeed, every migration applied exactly once', async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const name = `bomcore_migrate_${process.pid}_${Date.now()}`;
    await admin.query(`create database "${name}"`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      const orms = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://' })));
      try {
        const applied = await Promise.all(orms.map((orm) => migrate(orm)));
        expect(applied.flat().sort()).toEqual(migrationsList.map((m) => m.name).sort());
        const [{ count }] = (await orms[0]!.em.fork().execute<{ count: string }[]>('select count(*)::text as count from mikro_orm_migrations')) as [{ count: string }];
        expect(Number(count)).toBe(migrationsList.length);
      } finally {
        await Promise.all(orms.map((orm) => orm.close()));
      }
    } finally {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
