#!/usr/bin/env node
// Entry point of the `bomcore` command. bomcore needs Node 24 (MikroORM 7, type stripping); the
// project installs it as the `node` package, so an older `node` on PATH re-executes with that one.
// A command that wants V8 settings (node-flags.js) also runs in a child process given them; this
// file decides before any TypeScript is loaded, so the relaying process stays small.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagsFor, missingFlags, runWith } from './node-flags.js';

// V8's compile cache on disk (Node ≥ 22.8; $TMPDIR/node-compile-cache, NODE_COMPILE_CACHE moves it,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command after the first compiles little of its ~900
// modules again, about a quarter less CPU and 15 MB less peak memory. The child a command runs in
// (runWith) inherits it through the environment, so its static imports are cached too.
const compileCache = module.enableCompileCache?.();
if (compileCache?.directory && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = compileCache.directory;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(root, 'src', 'cli', 'main.ts');
const args = process.argv.slice(2);
const major = Number(process.versions.node.split('.')[0]);
const flags = missingFlags(flagsFor(args, process.env));
if (major >= 24 && flags.length === 0) {
  await import(main);
} else {
  const node24 = major >= 24 ? process.execPath : join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node24)) {
    console.error(`bomcore needs Node 24 or newer (found ${process.version}); run "npm ci" in ${root} first.`);
    process.exit(1);
  }
  await runWith(node24, flags, main, args);
}
