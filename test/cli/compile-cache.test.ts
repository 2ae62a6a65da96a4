import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/*
 * Rule (docs/deployment.md, "Start-up"): the CLI keeps V8's compile cache on disk, so a command after
 * the first does not compile its modules again — in $TMPDIR/node-compile-cache, or where
 * NODE_COMPILE_CACHE says, and not at all with NODE_DISABLE_COMPILE_CACHE=1. Through `./bomcore` (the
 * root script, bin/bomcore.js) and when src/cli/main.ts is run by node directly (the relayed child).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = join(ROOT, 'node_modules', 'node', 'bin', 'node');
const run = promisify(execFile);

/** Every file under `dir` (the cache keeps one folder per Node version and one file per module). */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

function freshEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return { ...env, ...extra };
}

describe('the CLI compiles its modules once (V8 compile cache on disk)', () => {
  it('./bomcore print-schema fills NODE_COMPILE_CACHE with the compiled modules, and a second run reads them (no new files)', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'bomcore-ncc-'));
    await run(join(ROOT, 'bomcore'), ['print-schema'], { env: freshEnv({ NODE_COMPILE_CACHE: cache }), maxBuffer: 16 << 20 });
    const first = filesUnder(cache);
    // The schema's modules, the CLI's own and their dependencies: hundreds, not a handful.
    expect(first.length).toBeGreaterThan(100);
    await run(join(ROOT, 'bomcore'), ['print-schema'], { env: freshEnv({ NODE_COMPILE_CACHE: cache }), maxBuffer: 16 << 20 });
    expect(filesUnder(cache).length).toBe(first.length);
  });

  it('./bomcore --help (no NODE_COMPILE_CACHE) caches the modules bin/bomcore.js imports in $TMPDIR/node-compile-cache', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'bomcore-tmp-help-'));
    await run(join(ROOT, 'bomcore'), ['--help'], { env: freshEnv({ TMPDIR: tmp }) });
    // src/cli/main.ts and the two modules it imports for help: imported after the cache was enabled.
    expect(filesUnder(join(tmp, 'node-compile-cache')).length).toBeGreaterThanOrEqual(3);
  });

  it('node src/cli/main.ts (no NODE_COMPILE_CACHE) keeps the cache in $TMPDIR/node-compile-cache for the command it imports', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'bomcore-tmp-'));
    await run(NODE, [join(ROOT, 'src', 'cli', 'main.ts'), 'print-schema'], { env: freshEnv({ TMPDIR: tmp }), maxBuffer: 16 << 20 });
    expect(filesUnder(join(tmp, 'node-compile-cache')).length).toBeGreaterThan(100);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off: nothing is written', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'bomcore-ncc-off-'));
    const tmp = mkdtempSync(join(tmpdir(), 'bomcore-tmp-off-'));
    await run(join(ROOT, 'bomcore'), ['--help'], { env: freshEnv({ TMPDIR: tmp, NODE_DISABLE_COMPILE_CACHE: '1' }) });
    await run(join(ROOT, 'bomcore'), ['print-schema'], { env: freshEnv({ NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' }), maxBuffer: 16 << 20 });
    expect(filesUnder(cache)).toEqual([]);
    expect(filesUnder(join(tmp, 'node-compile-cache'))).toEqual([]);
  });
});
