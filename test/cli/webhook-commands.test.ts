import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseLabel, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { runCli } from './run-cli.ts';

// Issue 22 item 2: `bomcore webhook create --json` prints {"id", "secret": "whsec_…"} (the secret
// once), `list` shows the endpoint without it, `delete` removes it; an unknown topic is a usage error.

const work = mkdtempSync(join(tmpdir(), 'bomcore-webhook-cli-'));
const env = {
  ...(usingPostgres ? {} : { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(work, 'data') }),
  BOMCORE_SECRET_KEY: randomBytes(32).toString('hex'),
};

describe(`bomcore webhook on ${databaseLabel}`, () => {
  it('create --json prints the id and the secret once; list shows the endpoint without it; delete removes it', async () => {
    const shop = uniqueShopId('wh-cli');
    const created = await runCli(['webhook', 'create', '--shop', shop, '--url', 'https://hooks.example.com/in', '--topics', 'inventory.level_changed,work_order.transitioned', '--json'], env);
    expect(created.stderr).toBe('');
    const { id, secret } = JSON.parse(created.stdout);
    expect(Object.keys(JSON.parse(created.stdout))).toEqual(['id', 'secret']);
    expect(secret).toMatch(/^whsec_/);
    const listed = await runCli(['webhook', 'list', '--shop', shop, '--json'], env);
    expect(JSON.parse(listed.stdout)).toEqual([{ id, url: 'https://hooks.example.com/in', topics: ['inventory.level_changed', 'work_order.transitioned'], enabled: true, disabledReason: null }]);
    expect(listed.stdout).not.toContain('whsec_');
    expect((await runCli(['webhook', 'delete', id, '--shop', shop], env)).code).toBe(0);
    expect(JSON.parse((await runCli(['webhook', 'list', '--shop', shop, '--json'], env)).stdout)).toEqual([]);
  });

  it('an unknown topic is refused before anything is written, naming the topics', async () => {
    const refused = await runCli(['webhook', 'create', '--shop', 'x', '--url', 'https://hooks.example.com/in', '--topics', 'stock.moved'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown stock.moved; topics: inventory.level_changed');
  });
});
