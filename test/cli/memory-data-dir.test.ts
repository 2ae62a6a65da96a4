import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { BIN } from './run-cli.ts';

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
});
