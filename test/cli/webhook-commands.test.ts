import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseLabel, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { startServer } from '../helpers/server-process.ts';
import { runCli } from './run-cli.ts';

// Issue 22 item 2: `bomcore webhook create --json` prints {"id", "secret": "whsec_…"} (the secret
// once), `list` shows the endpoint without it, `delete` removes it; an unknown topic is a usage error.

const work = mkdtempSync(join(tmpdir(), 'bomcore-webhook-cli-'));
const env = {
  ...(usingPostgres ? {} : { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(work, 'data') }),
  BOMCORE_SECRET_KEY: randomBytes(32).toString('hex'),
};

/** Loads a small shop with `bomcore load`, so webhook commands have a shop to name. */
async function loadShop(shop: string): Promise<void> {
  const file = join(work, `${shop}.json`);
  writeFileSync(file, JSON.stringify(datasetJson(shop)));
  const loaded = await runCli(['load', file], env);
  expect(loaded.code, loaded.stderr).toBe(0);
}

describe(`bomcore webhook on ${databaseLabel}`, () => {
  it('create --json prints the id and the secret once; list shows the endpoint without it; delete removes it', async () => {
    const shop = uniqueShopId('wh-cli');
    await loadShop(shop);
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

  it('rule: create refuses a shop that does not exist, naming it, as key create does (issue 33)', async () => {
    const refused = await runCli(['webhook', 'create', '--shop', 'no-such-shop', '--url', 'https://hooks.example.com/in', '--topics', 'bom.updated'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('bomcore webhook: shop no-such-shop not found');
    expect((await runCli(['key', 'create', '--shop', 'no-such-shop', '--scopes', 'read'], env)).stderr).toContain('shop no-such-shop not found');
  });

  it('rule: a private receiver is refused naming BOMCORE_WEBHOOKS_ALLOW_PRIVATE, and where it acts: the running server, not this command', async () => {
    const shop = uniqueShopId('wh-private');
    await loadShop(shop);
    const create = ['webhook', 'create', '--shop', shop, '--url', 'http://127.0.0.1:9/hook', '--topics', 'bom.updated'];
    // No server: the command checks the URL itself, so the variable on the command is the switch.
    expect((await runCli(create, env)).stderr).toContain('allowed only with BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1');
    if (usingPostgres) {
      expect((await runCli([...create, '--json'], { ...env, BOMCORE_WEBHOOKS_ALLOW_PRIVATE: '1' })).code).toBe(0);
      return;
    }
    // The embedded database with `serve` running: the server checks (and later delivers), so the
    // variable on the command changes nothing and the refusal says to restart the server with it.
    const server = await startServer({ ...env, PORT: '0' }, { startTimeoutMs: 180_000 });
    try {
      const refused = await runCli(create, { ...env, BOMCORE_WEBHOOKS_ALLOW_PRIVATE: '1' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1\)\. The running `bomcore serve` checked it and delivers to it: restart the server with BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1 \(on this command the variable changes nothing\)/);
      // Through the server too, an unknown shop is refused.
      expect((await runCli(['webhook', 'create', '--shop', 'no-such-shop', '--url', 'https://hooks.example.com/in', '--topics', 'bom.updated'], env)).stderr).toContain('shop no-such-shop not found');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 240_000);
});
