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
// - `--liftoff-only` for the batch commands on the embedded database (every command that opens
//   it). PGlite is PostgreSQL compiled to WebAssembly, and V8's optimizing compiler compiling
//   its hot functions (the migrations' catalogue work, then the load) took about 550 MB for a
//   second: a 20k shop's load peaked at 966 MB. With the baseline compiler only it does not, and a
//   short-lived command finishes no later (the compilation itself took a core).
// - The same two for `serve` on the embedded database (`npm start`). Its start (migrations, the demo
//   shop's load, the warm-up) is where PGlite's functions get hot: with the optimizing compiler the
//   demo start peaked at 907–1010 MB and settled at 376–543 MB; with both flags it peaked and settled
//   at 288 MB, and the demo's reads answered no slower (the compiler no longer takes a core from them).
// - `--max-semi-space-size=4` for `serve` on PostgreSQL too (each worker of `--workers N` inherits
//   it). Its start (loading the app, compiling each stored operation and validator) and its requests
//   are young objects by the million, and the default young generation kept a worker at 321 MB
//   before its first request, 368 MB after 15 s of reads; capped, 206 and 272 MB, the same
//   throughput (bench's 20k shop).
// - `--max-semi-space-size=1 --optimize-for-size --max-opt=1 --liftoff-only` for the commands that
//   need no database (`print-schema`, `print-openapi`): they load the schema (and `print-openapi` the
//   route schemas) once, and their memory is the garbage of loading it. Measured: print-schema 181 →
//   128 MB peak, print-openapi 318 → 177 MB with the first two. They run each function a few times:
//   V8's optimizing compilers (Maglev, TurboFan: `--max-opt=1` stops at the baseline compiler) and the
//   WebAssembly one (for Node's TypeScript stripper, `--liftoff-only`) cost memory and win no time.
//   Measured (median of 5, interleaved): print-schema 128 → 110 MiB, print-openapi 143 → 118 MiB,
//   CPU 0.87× and 0.92×.
import { spawn } from 'node:child_process';
import { setTimeout } from 'node:timers';

const SHOP_BATCH = new Set(['connect', 'sync', 'reconcile']);
const EMBEDDED_BATCH = new Set(['load', 'migrate', 'export', 'key', 'webhook', 'shop', 'plan']);
const NO_DATABASE = new Set(['print-schema', 'print-openapi']);

/** The V8 flags `bomcore ARGS` should run with, given its environment (none to print help). */
export function flagsFor(args, env) {
  const [name = '', sub] = args;
  const flags = [];
  if (args.includes('--help') || args.includes('-h')) return flags;
  if (NO_DATABASE.has(name)) return ['--max-semi-space-size=1', '--optimize-for-size', '--max-opt=1', '--liftoff-only'];
  const embedded = (EMBEDDED_BATCH.has(name) || name === 'serve') && !env.DATABASE_URL;
  if (embedded || name === 'plan' || name === 'serve' || (name === 'shop' && sub !== undefined && SHOP_BATCH.has(sub))) flags.push('--max-semi-space-size=4');
  if (embedded) flags.push('--liftoff-only');
  return flags;
}

/**
 * The flags of `wanted` this process does not run with (its own arguments or NODE_OPTIONS; a size
 * the user set counts as set, and so does a flag turned off: `node --no-liftoff-only bin/bomcore.js serve`).
 */
export function missingFlags(wanted) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((arg) => arg.split('=')[0].replace(/^--no-/, '--'));
  return wanted.filter((flag) => !given.includes(flag.split('=')[0]));
}

/**
 * Runs `script` with `args` in a child process of `node` given `flags`, forwarding its output, its
 * signals and its exit code. Resolves never: this process exits with the child.
 */
export function runWith(node, flags, script, args) {
  // `serve` drains on its first signal and stops at once on a second: a terminal's Ctrl-C goes to the
  // whole foreground process group, so in that group the child would get it twice (the terminal's and
  // this process's). In a process group of its own it gets each signal once, from here; and through
  // the IPC channel it learns when this process is gone (killed outright) and stops by itself
  // (watchRelay), instead of serving on alone.
  // A service manager may signal every process of the service: the child then says over the channel
  // which signal it got itself, and this process does not send it again.
  const serve = args[0] === 'serve';
  const child = spawn(node, [...flags, script, ...args], { stdio: serve ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit', detached: serve, env: { ...process.env, ...(serve ? { BOMCORE_RELAYED: '1' } : {}) } });
  const gotItself = new Map();
  if (serve) child.on('message', (message) => message?.bomcoreSignal && gotItself.set(message.bomcoreSignal, Date.now()));
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => (serve && signal !== 'SIGHUP' ? setTimeout(() => Date.now() - (gotItself.get(signal) ?? 0) > 1000 && forward(signal), 200) : forward(signal)));
  }
  return new Promise(() => {
    child.on('error', (error) => {
      console.error(`bomcore: cannot start ${node}: ${error.message}`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}

/**
 * In a `serve` started by runWith: when the relaying process is gone (its IPC channel closes), this
 * one stops as on SIGTERM (drains, closes the database); a signal it gets itself, it reports (the
 * relay then does not send it again). The channel keeps nothing alive.
 */
export function watchRelay() {
  if (process.env.BOMCORE_RELAYED !== '1' || !process.channel) return;
  delete process.env.BOMCORE_RELAYED;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.connected && process.send({ bomcoreSignal: signal }));
}
