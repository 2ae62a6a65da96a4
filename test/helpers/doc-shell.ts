import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One curl call a block made: its HTTP status (0 when no answer came), what it printed, its arguments. */
export interface CurlCall { status: number; args: string; body: string }

/** What running a block gave: its curl calls in order, the commands that failed, what it wrote to stderr. */
export interface BlockRun { calls: CurlCall[]; failedCommands: string[]; stderr: string }

/**
 * The reader's terminal for one page: one bash that runs the page's shell blocks one after the other,
 * so a variable a block sets (`WO=…`, `UPDATED_AT=$(curl …)`) is there for the next, as it is for a
 * reader pasting them in turn. It runs in a temporary folder (a block may write a file there) with
 * `BOMCORE_KEY` set; `curl` is wrapped so that every call, those inside `$(…)` included, records its
 * status and what it printed, and prints as curl would (the status travels on stderr, so `-o`, `-D -`
 * and `-i` work as written). A command that fails (`jq` missing, a syntax error) is recorded too.
 */
export class DocShell {
  private readonly dir = mkdtempSync(join(tmpdir(), 'bomcore-doc-shell-'));
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private blocks = 0;

  constructor(env: Record<string, string>) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd: this.dir, env: { ...process.env, ...env } as NodeJS.ProcessEnv });
    this.child.stdout.on('data', (d) => (this.stdout += d));
    this.child.stderr.on('data', (d) => (this.stderr += d));
    const file = (name: string) => JSON.stringify(join(this.dir, name));
    this.child.stdin.write([
      'set -E',
      `trap 'printf "%s\\t%s\\n" "$?" "$BASH_COMMAND" >> ${file('failed')}' ERR`,
      '__n=0',
      'curl() {',
      '  __n=$((__n + 1))',
      `  local out=${file('out.')}$__n err=${file('err.')}$__n`,
      `  command curl "$@" -w '%{stderr}\\n__bomcore_status %{http_code}\\n' 2>"$err" | tee "$out"`,
      '  grep -v -e "^__bomcore_status " -e "^$" "$err" >&2 || true',
      '  local args="$*"',
      `  printf "%s\\t%s\\t%s\\n" "$(sed -n "s/^__bomcore_status //p" "$err")" "$out" "\${args//$'\\n'/ }" >> ${file('calls')}`,
      '  return 0',
      '}',
      '',
    ].join('\n'));
  }

  /** Runs a block whole and waits for it (at most `timeoutMs`). */
  async run(block: string, timeoutMs = 60_000): Promise<BlockRun> {
    const marker = `__bomcore_block_done_${++this.blocks}__`;
    for (const name of ['calls', 'failed']) writeFileSync(join(this.dir, name), '');
    this.stdout = '';
    this.stderr = '';
    this.child.stdin.write(`${block}\nprintf '\\n${marker}\\n'\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(marker)) {
      if (this.child.exitCode !== null) throw new Error(`the shell exited (${this.child.exitCode}) in the block; stderr: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`the block did not finish in ${timeoutMs} ms (an unclosed quote?); stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const lines = (name: string) => readFileSync(join(this.dir, name), 'utf8').split('\n').filter(Boolean);
    const calls = lines('calls').map((line) => {
      const [status, out, ...args] = line.split('\t');
      return { status: Number(status || 0), args: args.join('\t'), body: readFileSync(out!, 'utf8') };
    });
    return { calls, failedCommands: lines('failed'), stderr: this.stderr };
  }

  /** Ends the shell and removes its folder (and what the blocks wrote there). */
  async close(): Promise<void> {
    const exited = new Promise((resolve) => (this.child.exitCode !== null ? resolve(null) : this.child.once('exit', resolve)));
    this.child.stdin.end();
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    await exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
