import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { runCli } from './run-cli.ts';

const work = mkdtempSync(join(tmpdir(), 'bomcore-cli-'));
// PostgreSQL when DATABASE_URL is set; otherwise an embedded database on disk, shared by the steps.
const env = usingPostgres ? {} : { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(work, 'data') };

describe(`bomcore CLI on ${databaseLabel}`, () => {
  const shop = uniqueShopId('cli');
  const file = join(work, 'shop.json');
  writeFileSync(file, JSON.stringify(datasetJson(shop), null, 2));

  it('migrate, load, key create --json, export: the export loads back to the same export', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const load = await runCli(['load', file], env);
    expect(load.code, load.stderr).toBe(0);
    expect(load.stderr).toMatch(new RegExp(`loaded shop ${shop}: \\d+ rows`));

    const key = await runCli(['key', 'create', '--shop', shop, '--scopes', 'read,write', '--name', 'ci', '--json'], env);
    expect(key.code, key.stderr).toBe(0);
    const created = JSON.parse(key.stdout);
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'scopes', 'shopId']);
    expect(created).toMatchObject({ shopId: shop, scopes: ['read', 'write'] });
    expect(created.key).toMatch(/^bck_[A-Za-z0-9_-]{43}$/);

    const first = await runCli(['export', '--shop', shop], env);
    expect(first.code, first.stderr).toBe(0);
    const exportFile = join(work, 'export.json');
    writeFileSync(exportFile, first.stdout);
    expect((await runCli(['load', exportFile], env)).code).toBe(0);
    const second = await runCli(['export', '--shop', shop, '--out', join(work, 'export2.json')], env);
    expect(second.code).toBe(0);
    expect(readFileSync(join(work, 'export2.json'), 'utf8')).toBe(first.stdout);

    const list = await runCli(['key', 'list', '--shop', shop, '--json'], env);
    expect(JSON.parse(list.stdout).map((k: { id: string }) => k.id)).toContain(created.id);
    expect(list.stdout).not.toContain(created.key);
    expect((await runCli(['key', 'revoke', created.id], env)).code).toBe(0);
    const after = JSON.parse((await runCli(['key', 'list', '--shop', shop, '--json'], env)).stdout);
    expect(after.find((k: { id: string }) => k.id === created.id).revokedAt).not.toBeNull();
    // Nine CLI processes, each starting Node and (without DATABASE_URL) the embedded database:
    // about 45 s on an idle 2-core machine, so the default 60 s leaves no room for a busy one.
  }, 180_000);

  it('a bad file is refused whole: every problem named by JSON path, exit 1, nothing written', async () => {
    const before = (await runCli(['export', '--shop', shop], env)).stdout;
    const bad = datasetJson(shop, {});
    (bad.boms as any[])[0].rawMaterialReferences[0].nodeId = '44999';
    (bad.shop as any).name = 'Changed';
    (bad.assignees as any[])[0].typo = true;
    const badFile = join(work, 'bad.json');
    writeFileSync(badFile, JSON.stringify(bad));
    const res = await runCli(['load', badFile], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('$.boms[0].rawMaterialReferences[0].nodeId: unknown material "44999"');
    expect(res.stderr).toContain('$.assignees[0].typo');
    expect(res.stderr).toContain('nothing was written');
    expect((await runCli(['export', '--shop', shop], env)).stdout).toBe(before);
  });

  it('malformed JSON and a missing file are reported without a stack trace', async () => {
    const broken = join(work, 'broken.json');
    writeFileSync(broken, '{"formatVersion": 1,');
    const res = await runCli(['load', broken], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^\$: malformed JSON/m);
    const missing = await runCli(['load', join(work, 'nope.json')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no such file: ${join(work, 'nope.json')}`);
    expect(missing.stderr).not.toContain('    at ');
  });

  it('usage errors exit 2 and say what is missing', async () => {
    const res = await runCli(['key', 'create', '--scopes', 'read'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--shop is required');
    const scopes = await runCli(['key', 'create', '--shop', shop, '--scopes', 'admin'], env);
    expect(scopes.code).toBe(1);
    expect(scopes.stderr).toContain('scopes: must be "read" or "read,write"');
    expect((await runCli(['frobnicate'], env)).code).toBe(2);
  });

  it('a key for an unknown shop is refused', async () => {
    const res = await runCli(['key', 'create', '--shop', 'no-such-shop', '--scopes', 'read'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('shop no-such-shop not found');
  });

  it('generate is deterministic for a seed, reports progress on stderr, and its output loads', async () => {
    const args = ['generate', '--materials', '60', '--boms', '8', '--depth', '3', '--locations', '3', '--work-orders', '10', '--orders', '6', '--seed', '7', '--shop', uniqueShopId('gen')];
    const a = await runCli(args, env);
    const b = await runCli(args, env);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stderr).toMatch(/^generating \w+: [\d,]+ \/ [\d,]+ items \(\d+%\)$/m);
    const genFile = join(work, 'generated.json');
    writeFileSync(genFile, a.stdout);
    const load = await runCli(['load', genFile], env);
    expect(load.code, load.stderr).toBe(0);
  });
});

describe('bin/bomcore.js', () => {
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p));
  const systemMajor = systemNode ? Number(execFileSync(systemNode, ['-p', 'process.versions.node.split(".")[0]']).toString()) : 24;
  // The machines ship an older system Node; where it is absent there is nothing to re-execute from.
  if (systemNode !== undefined && systemMajor < 24) it('runs on Node 24 from the node package when started by an older system node', async () => {
    const res = await runCli(['help'], {}, { node: systemNode! });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: bomcore <command>');
  });
});
