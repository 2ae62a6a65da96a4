import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contextDeps } from '../app/composition.ts';
import type { Config } from '../kernel/config.ts';
import type { Orm } from '../app/database.ts';
import { authenticate, createApiKey } from '../modules/auth/keys.ts';
import { importDataset } from '../dataset/import.ts';
import { parseDatasetText } from '../dataset/parse.ts';

const DEMO_FILE = new URL('../../data/demo-dataset.json', import.meta.url);
const DEMO_SHOP = 'demo';
const DEMO_KEY_NAME = 'npm start (embedded demo)';
/**
 * The demo key's secret, in the (owner-only) data directory: bomcore keeps only hashes in the
 * database, and `npm start` prints the same key on every start, so it keeps this one copy.
 */
export const DEMO_KEY_FILE = 'demo-api-key';

export interface DemoKey { shopId: string; keyId: string; key: string; replaced: 'revoked' | 'expired' | null }

function savedKey(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * On the embedded database: loads the demo shop when the database is empty, and gives the
 * read-write key of the demo shop: the one a previous start created while it is still valid (so a
 * key a user exported keeps working across restarts), else a new one (first start, or the
 * previous one was revoked or expired). In memory (`dataDir` null) there is no previous start to keep a key from.
 */
export async function prepareEmbeddedDemo(orm: Orm, config: Config, dataDir: string | null, say: (line: string) => void = console.log): Promise<DemoKey | null> {
  const em = orm.em.fork();
  const [shops] = await em.execute<{ count: string }[]>('select count(*) as count from shops');
  if (Number(shops?.count ?? 0) === 0) {
    const parsed = parseDatasetText(await readFile(DEMO_FILE, 'utf8'));
    if (!parsed.ok) throw new Error(`the bundled demo dataset is invalid: ${parsed.errors[0]?.path} ${parsed.errors[0]?.message}`);
    await importDataset(contextDeps(orm, config), parsed.dataset);
    say(`Loaded the demo shop "${parsed.dataset.shop.name}" (id ${parsed.dataset.shop.id}).`);
  }
  const [demo] = await em.execute<{ id: string }[]>(`select id from shops where id = '${DEMO_SHOP}'`);
  if (!demo) return null;
  const file = dataDir ? join(dataDir, DEMO_KEY_FILE) : null;
  const saved = file ? savedKey(file) : null;
  const previous = saved ? await authenticate(orm.em.fork(), `Bearer ${saved}`) : null;
  if (saved && typeof previous === 'object' && previous !== null && previous.shopId === DEMO_SHOP && previous.scopes.includes('write')) {
    return { shopId: DEMO_SHOP, keyId: previous.keyId, key: saved, replaced: null };
  }
  const created = await createApiKey(orm.em.fork(), { shopId: DEMO_SHOP, scopes: ['read', 'write'], name: DEMO_KEY_NAME });
  if (file) writeFileSync(file, `${created.key}\n`, { mode: 0o600 });
  const replaced = previous === 'revoked' || previous === 'expired' ? previous : null;
  return { shopId: DEMO_SHOP, keyId: created.id, key: created.key, replaced };
}

/** The welcome, written in one piece so a reader of the output never sees half of it. */
export function printWelcome(config: Config, address: string, demo: DemoKey | null): void {
  const lines = [`\nbomcore listening on ${address} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`];
  if (!demo) {
    lines.push('Create an API key with: ./bomcore key create --shop <shop id> --scopes read,write');
  } else {
    lines.push(
      `\nRead-write API key for shop "${demo.shopId}" (${demo.keyId}; the same on every start until revoked${demo.replaced ? `; the previous one was ${demo.replaced}` : ''}):\n\n  ${demo.key}\n`,
      'The examples of README.md and docs/quick-start.md read it from BOMCORE_KEY; in another terminal:',
      `  export BOMCORE_KEY=${demo.key}\n`,
      'Try:',
      `  curl -s ${address}/api/v1/locations -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s "${address}/api/v1/raw-materials?search=wax&pageSize=5" -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s ${address}/api/v1/bills-of-materials/BOM-1001/buildable -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s "${address}/api/v1/order-bom-breakdown?ids=5001,5002" -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s "${address}/api/v1/work-orders?status=ready,in_progress" -H "Authorization: Bearer ${demo.key}"`,
      `  curl -s ${address}/graphql -H "Authorization: Bearer ${demo.key}" -H "Content-Type: application/json" -d '{"query":"{ locations { locationId name } }"}'`,
      `  curl -s ${address}/api/v1/openapi.json\n`,
      'While it runs, `./bomcore key create|list|revoke` and `./bomcore export` work in another terminal.',
    );
  }
  console.log(lines.join('\n'));
}
