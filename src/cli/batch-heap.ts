import { spawn } from 'node:child_process';

/**
 * A batch command's heap: its young generation capped at a few MiB. V8 grows the young generation
 * to 16 MiB semi-spaces (about 48 MiB committed) when much survives a scavenge, which a streamed
 * sync does all along (each page of rows lives until its write returns). Measured on a
 * 10,000-variant sync against PostgreSQL: peak RSS 219–237 MiB by default, 158–193 MiB with 4 MiB
 * semi-spaces, same time. V8 reads the size only when the heap is set up, so the command runs in a
 * child process given the flag (unless the flag is already set, by the user or by this).
 */
const FLAG = '--max-semi-space-size';
const SEMI_SPACE_MIB = 4;

/** Whether this process already runs with a semi-space size (its own flags or NODE_OPTIONS). */
export function hasSemiSpaceFlag(): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) => arg.startsWith(FLAG));
}

/**
 * Runs this same command again in a child process with the young generation capped, forwarding
 * its output, its signals and its exit code. Resolves never: this process exits with the child.
 */
export function rerunWithBatchHeap(): Promise<never> {
  const child = spawn(process.execPath, [...process.execArgv, `${FLAG}=${SEMI_SPACE_MIB}`, process.argv[1]!, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  return new Promise(() => {
    child.on('error', (error) => {
      console.error(`bomcore: cannot start ${process.execPath}: ${error.message}`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}
