#!/usr/bin/env node
// Entry point of the `bomcore` command. bomcore needs Node 24 (MikroORM 7, type stripping); the
// project installs it as the `node` package, so an older `node` on PATH re-executes with that one.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(root, 'src', 'cli', 'main.ts');
const major = Number(process.versions.node.split('.')[0]);
if (major >= 24) {
  await import(main);
} else {
  const node24 = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node24)) {
    console.error(`bomcore needs Node 24 or newer (found ${process.version}); run "npm ci" in ${root} first.`);
    process.exit(1);
  }
  const child = spawn(node24, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
