import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../cli/run-cli.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { killServersAfterEach, startServer } from '../helpers/server-process.ts';

// Rule: the embedded database (PGlite data directory) has one owner. While `bomcore serve` holds it,
// every other bomcore process refuses with a message naming the server (pid, address) and what to
// do, and changes nothing; once the server stops, the directory is free again.


const embedded = (dataDir: string) => ({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
killServersAfterEach();

describe('embedded database: one owner', () => {
  it('while serve runs, key create / load / export / a second serve refuse, naming the server; after it stops, a created key works on the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-owner-'));
    const server = await startServer(embedded(dataDir));
    const lockPath = join(dataDir, 'bomcore.lock');
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    expect(lock).toMatchObject({ pid: server.child.pid, command: 'serve', address: server.address });

    const refused = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'read', '--name', 'while-serving', '--json'], embedded(dataDir));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`in use by bomcore serve (pid ${server.child.pid}, listening on ${server.address}`);
    expect(refused.stderr).toContain('Stop that server first');
    expect(refused.stderr).toContain('DATABASE_URL');

    const datasetFile = join(dataDir, '..', `${lock.token}-shop.json`);
    writeFileSync(datasetFile, JSON.stringify(datasetJson('owner-shop')));
    for (const args of [['load', datasetFile], ['export', '--shop', 'demo'], ['migrate'], ['key', 'list', '--shop', 'demo']]) {
      const other = await runCli(args, embedded(dataDir));
      expect(other.code, args.join(' ')).toBe(1);
      expect(other.stderr, args.join(' ')).toContain(`pid ${server.child.pid}`);
    }
    const second = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, ...embedded(dataDir), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let secondErr = '';
    second.stderr!.on('data', (d) => (secondErr += d));
    expect(await new Promise((resolve) => second.on('exit', resolve))).toBe(1);
    expect(secondErr).toContain(`in use by bomcore serve (pid ${server.child.pid}`);

    // The running server is unharmed and its lock still names it.
    const demoKey = /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!;
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: { authorization: `Bearer ${demoKey}` } })).status).toBe(200);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(server.child.pid);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(lockPath)).toBe(false);

    // Nothing of the refused process reached the database; now the directory is free.
    const list = await runCli(['key', 'list', '--shop', 'demo', '--json'], embedded(dataDir));
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain('while-serving');
    expect((await runCli(['export', '--shop', 'owner-shop'], embedded(dataDir))).stdout).not.toContain('owner-shop');
    const created = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'read', '--name', 'after-stop', '--json'], embedded(dataDir));
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    expect(existsSync(lockPath)).toBe(false);

    const again = await startServer(embedded(dataDir));
    expect((await fetch(`${again.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 300_000);

  it('a lock left by a killed server (its pid gone) is stale: the next command takes the directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-owner-stale-'));
    const server = await startServer(embedded(dataDir));
    server.child.kill('SIGKILL');
    await server.exited;
    const lockPath = join(dataDir, 'bomcore.lock');
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(server.child.pid);

    const created = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'read', '--json'], embedded(dataDir));
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(lockPath)).toBe(false);
  }, 300_000);
});
