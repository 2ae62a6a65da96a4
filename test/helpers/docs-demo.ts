import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { prepareEmbeddedDemo } from '../../src/cli/demo-shop.ts';
import { contextDeps } from '../../src/app/composition.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { forBatchWork, migrate, openDatabase } from '../../src/app/database.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { parseDatasetText } from '../../src/dataset/parse.ts';

const DEMO_FILE = new URL('../../data/demo-dataset.json', import.meta.url);

/**
 * Prepares an embedded data directory for `bomcore serve`: the demo shop as `npm start` loads it
 * (the same function, so the server reuses its saved key and prints it), plus, for each of
 * `copies`, the demo dataset loaded again under that shop id with a read-write key of its own.
 * Every id of the demo (work orders, BOMs, `CF-<n>` and `BOM-<n>` sequences, timestamps) is per
 * shop, so each copy is a freshly started demo that no other copy's writes can reach: one server
 * runs every page of the docs as if it were the only one. `migratedSnapshot`, the migrated PGlite
 * of the test run's global setup (test/helpers/global-setup.ts), starts the directory when given.
 * Returns each copy's key.
 */
export async function prepareDocsDemo(dataDir: string, copies: string[], migratedSnapshot: string | null): Promise<Map<string, string>> {
  // A dump of PGlite is its data directory as a tarball: unpacked, it spares initdb and the migrations.
  if (migratedSnapshot) execFileSync('tar', ['-xf', migratedSnapshot, '-C', dataDir], { stdio: 'ignore' });
  const config = loadConfig({ ...process.env, DATABASE_URL: '', BOMCORE_DATA_DIR: dataDir });
  const orm = await openDatabase(forBatchWork(config));
  const keys = new Map<string, string>();
  try {
    await migrate(orm);
    await prepareEmbeddedDemo(orm, config, dataDir);
    const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as { shop: { id: string } };
    for (const shopId of copies) {
      const parsed = parseDatasetText(JSON.stringify({ ...demo, shop: { ...demo.shop, id: shopId } }));
      if (!parsed.ok) throw new Error(`the demo dataset as shop ${shopId}: ${parsed.errors[0]?.path} ${parsed.errors[0]?.message}`);
      await importDataset(contextDeps(orm, config), parsed.dataset);
      const created = await createApiKey(orm.em.fork(), { shopId, scopes: ['read', 'write'], name: 'docs examples' });
      keys.set(shopId, created.key);
    }
  } finally {
    await orm.close();
  }
  return keys;
}
