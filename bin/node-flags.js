// V8 settings a `bomcore` command runs with. V8 reads them when the process starts (they cannot be
// changed from inside it), so a command that wants one it lacks runs again in a child process given
// it, and the first process only relays the child's output, signals and exit code. Plain JavaScript
// (no type stripping), so that first process stays small: bin/bomcore.js decides before loading any
// TypeScript; src/cli/main.ts asks again when it is started directly (`node src/cli/main.ts …`).
//
// - `--max-semi-space-size=4` for `shop connect|sync|reconcile` and the batch commands on the
//   embedded database: they stream, keeping each page of rows (and, on the embedded database, each
//   statement's protocol buffers) alive until its write returns, and V8 answers that by growing the
//   young generation to 16 MiB semi-spaces (about 48 MiB committed, and dead buffers kept until the
//   next scavenge). Measured: a 10,000-variant sync against PostgreSQL peaked at 219–237 MiB by
//   default, 158–193 MiB capped, same time; a 20k shop's load into PGlite at 310–540 MB, 247–331 MB.
//   And for `plan` on any database: it holds the shop's demand and supply rows and the plan it
//   writes, young objects by the hundred thousand. Measured on the bench's 20k shop on PostgreSQL
//   (median of 5): 328 MiB peak, 1.31 s by default; 229 MiB, 1.22 s capped.
// - `--liftoff-only` for the batch commands on the embedded database (every command but `serve` that
//   opens it). PGlite is PostgreSQL compiled to WebAssembly, and V8's optimizing compiler compiling
//   its hot functions (the migrations' catalogue work, then the load) took about 550 MB for a
//   second: a 20k shop's load peaked at 966 MB. With the baseline compiler only it does not, and a
//   short-lived command finishes no later (the compilation itself took a core). `serve` keeps the
//   optimizing compiler: it runs long enough to repay it.
import { spawn } from 'node:child_process';

const SHOP_BATCH = new Set(['connect', 'sync', 'reconcile']);
const EMBEDDED_BATCH = new Set(['load', 'migrate', 'export', 'key', 'webhook', 'shop', 'plan']);

/** The V8 flags `bomcore ARGS` should run with, given its environment (none to print help). */
export function flagsFor(args, env) {
  const [name = '', sub] = args;
  const flags = [];
  if (args.includes('--help') || args.includes('-h')) return flags;
  const embedded = EMBEDDED_BATCH.has(name) && !env.DATABASE_URL;
  if (embedded || name === 'plan' || (name === 'shop' && sub !== undefined && SHOP_BATCH.has(sub))) flags.push('--max-semi-space-size=4');
  if (embedded) flags.push('--liftoff-only');
  return flags;
}

/** The flags of `wanted` this process does not run with (its own arguments or NODE_OPTIONS; a size the user set counts as set). */
export function missingFlags(wanted) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return wanted.filter((flag) => !given.some((arg) => arg.split('=')[0] === flag.split('=')[0]));
}

/**
 * Runs `script` with `args` in a child process of `node` given `flags`, forwarding its output, its
 * signals and its exit code. Resolves never: this process exits with the child.
 */
export function runWith(node, flags, script, args) {
  const child = spawn(node, [...flags, script, ...args], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  return new Promise(() => {
    child.on('error', (error) => {
      console.error(`bomcore: cannot start ${node}: ${error.message}`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}
