import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNodeMeasured } from '../../bench/processes.ts';
import { openDatabase } from '../../src/app/database.ts';
import { installedPgliteVersion, SHARED_BUFFERS, templateInfo } from '../../src/db/embedded-engine.ts';
import { flagsFor } from '../../bin/node-flags.js';

// The embedded database's engine: a new cluster comes from the checked-in template (initdb never
// runs in a bomcore process), it runs with 16 MB of shared buffers, and the batch commands on it run
// with V8's baseline WebAssembly compiler only: together a 20k shop loads in about 350 MB (its whole process tree), not 1.1 GB.

describe('the embedded engine', () => {
  it('the cluster template was made by the installed PGlite (run `npm run pglite:template` after upgrading it)', () => {
    expect(templateInfo().pgliteVersion).toBe(installedPgliteVersion());
  });

  it('a new data directory is unpacked from the template (its cluster id is the template\'s: no initdb ran) and runs with 16 MB of shared buffers', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'bomcore-engine-')), 'data');
    const orm = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      const [row] = await orm.em.getConnection().execute<{ id: string; catalog: string; version: string; buffers: string }[]>(
        `select system_identifier::text as id, catalog_version_no::text as catalog, current_setting('server_version') as version, current_setting('shared_buffers') as buffers from pg_control_system()`);
      const info = templateInfo();
      expect(row).toEqual({ id: info.systemIdentifier, catalog: String(info.catalogVersion), version: info.serverVersion, buffers: SHARED_BUFFERS });
    } finally {
      await orm.close();
    }
    // Opened again, the directory keeps its cluster (the template is only for a new one).
    const again = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      const [row] = await again.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from pg_class where relname = 'materials'`);
      expect(row!.n).toBe('0');
    } finally {
      await again.close();
    }
  }, 120_000);

  it('rule: every command on the embedded database, serve (npm start) included, runs with the baseline compiler only and a small young generation; help does not, and on PostgreSQL only plan, serve and the shop link commands cap the young generation', () => {
    for (const command of ['load', 'migrate', 'export', 'key', 'webhook', 'shop', 'plan', 'serve']) expect(flagsFor([command], {})).toEqual(['--max-semi-space-size=4', '--liftoff-only']);
    // The plan's young objects: a capped young generation on PostgreSQL too (bin/node-flags.js).
    expect(flagsFor(['plan', '--shop', 'demo'], { DATABASE_URL: 'postgres://x/y' })).toEqual(['--max-semi-space-size=4']);
    expect(flagsFor(['serve'], { DATABASE_URL: 'postgres://x/y' })).toEqual(['--max-semi-space-size=4']);
    expect(flagsFor(['serve', '--help'], {})).toEqual([]);
    // The commands that need no database: a 1 MiB young generation, V8's memory-saving mode, no optimizing compiler.
    for (const command of ['print-schema', 'print-openapi']) expect(flagsFor([command], {})).toEqual(['--max-semi-space-size=1', '--optimize-for-size', '--max-opt=1', '--liftoff-only']);
    expect(flagsFor(['load', '--help'], {})).toEqual([]);
    expect(flagsFor(['load', 'shop.json'], { DATABASE_URL: 'postgres://x/y' })).toEqual([]);
    expect(flagsFor(['shop', 'sync', '--shop', 'a'], { DATABASE_URL: 'postgres://x/y' })).toEqual(['--max-semi-space-size=4']);
  });

  it('`bomcore load` of a 2,000-material shop into a new embedded data directory peaks under 400 MB for its whole process tree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bomcore-engine-load-'));
    const file = join(dir, 'shop.json');
    const env: NodeJS.ProcessEnv = { ...process.env, BOMCORE_DATA_DIR: join(dir, 'data'), CI: 'true' };
    delete env.DATABASE_URL;
    await runNodeMeasured(['src/cli/main.ts', 'generate', '--materials', '2000', '--boms', '200', '--locations', '5', '--work-orders', '50', '--orders', '200', '--seed', '3', '--out', file], env, join(dir, 'generate.log'));
    const run = await runNodeMeasured(['bin/bomcore.js', 'load', file], env, join(dir, 'load.log'));
    console.log(`bomcore load, 2k shop, new embedded data directory: ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMB} MB (process tree)`);
    expect(run.peakRssMB).not.toBeNull();
    expect(run.peakRssMB!).toBeLessThan(400);
  }, 180_000);
});
