import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/kernel/config.ts';
import { BIN } from './run-cli.ts';
import { killServersAfterEach, startServer } from '../helpers/server-process.ts';

// Rule: BOMCORE_DATA_DIR=memory:// keeps the embedded database in memory: no folder is created
// (before, the value was resolved as a path and a database was written into ./memory:).

function migrateIn(cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'migrate'], {
      cwd, env: { ...process.env, DATABASE_URL: '', BOMCORE_DATA_DIR: 'memory://' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

killServersAfterEach();

describe('BOMCORE_DATA_DIR=memory://', () => {
  it('is kept as memory:// (not resolved as a path); other values are resolved to an absolute folder', () => {
    expect(loadConfig({ BOMCORE_DATA_DIR: 'memory://' }).dataDir).toBe('memory://');
    expect(loadConfig({ BOMCORE_DATA_DIR: './some/data' }).dataDir).toBe(join(process.cwd(), 'some/data'));
  });

  it('bomcore migrate with it succeeds and creates no folder (no memory: in the working directory)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bomcore-memory-'));
    const result = await migrateIn(cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('serve with it migrates, loads the demo shop and prints a key that reads it (as npm start on disk does)', async () => {
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: 'memory://' }, { startTimeoutMs: 180_000 });
    const key = /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())?.[1];
    expect(key, server.stdout()).toBeDefined();
    const response = await fetch(`${server.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { locations: unknown[] } }).data.locations.length).toBeGreaterThan(0);
  });
});
