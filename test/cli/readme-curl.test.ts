import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { killServersAfterEach, startServer } from '../helpers/server-process.ts';

/**
 * The curl examples of the README (and of docs/quick-start.md) are run, as a reader would paste
 * them, against `npm start`'s demo shop: every call must answer 2xx.
 *
 * The pages write the address `npm start` prints by default and the key as `$BOMCORE_KEY`; the test
 * puts the address of its own server in place of the first and the key that server printed in the
 * second. Each ```sh block that holds a curl runs whole in one bash (so `WO=…` and
 * `UPDATED_AT=$(curl …)` lines work as they do for a reader), with `curl` wrapped so that every call,
 * those inside `$(…)` included, records its status.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PLACEHOLDER_ADDRESS = 'http://127.0.0.1:3000';
const PAGES = ['README.md', 'docs/quick-start.md'];

killServersAfterEach();

/** A block's commands: continuation lines joined, comments and blank lines dropped. */
function commands(block: string): string[] {
  return block.replace(/\\\n/g, ' ').split('\n').map((line) => line.replace(/(^|\s)#.*$/, '').trim()).filter(Boolean);
}

/** Occurrences of a curl command (at the start of a command, or in `$(…)` / a pipe) in a block. */
const curlCalls = (block: string) => commands(block).join('\n').match(/(^|\$\(|[|;&]\s*)curl\s/gm)?.length ?? 0;

/** The ```sh / ```bash blocks of a markdown page that run curl. */
function curlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].map((m) => m[1]!).filter((block) => curlCalls(block) > 0);
}

/**
 * Only curl calls, variable assignments and echo run: a block with any other command (npm, npx, rm…)
 * is reported instead of run, so an example can never change the checkout or the machine.
 */
const unsafeCommands = (block: string) => commands(block).filter((command) => !/^(curl\s|[A-Za-z_][A-Za-z0-9_]*=|echo\s)/.test(command));

interface Call { status: number; args: string; body: string }

/** Runs a block in bash with BOMCORE_KEY set; returns every curl call it made, in order. */
async function runBlock(block: string, address: string, key: string): Promise<{ calls: Call[]; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bomcore-readme-curl-'));
  const wrapper = [
    `__calls=${JSON.stringify(join(dir, 'calls'))}`,
    // Every call appends "status<TAB>body file<TAB>arguments" and prints the body as curl would.
    'curl() {',
    `  local body; body=$(mktemp ${JSON.stringify(join(dir, 'body.XXXXXX'))})`,
    '  local code; code=$(command curl -o "$body" -w "%{http_code}" "$@")',
    '  printf "%s\\t%s\\t%s\\n" "$code" "$body" "$*" >> "$__calls"',
    '  cat "$body"',
    '}',
  ].join('\n');
  const script = `${wrapper}\n${block.split(PLACEHOLDER_ADDRESS).join(address)}`;
  const child = spawn('bash', ['-c', script], { env: { ...process.env, BOMCORE_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (d) => (stderr += d));
  await new Promise<void>((done) => child.on('close', () => done()));
  let lines: string[] = [];
  try {
    lines = readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean);
  } catch { /* no call was made */ }
  const calls = lines.map((line) => {
    const [status, bodyFile, ...args] = line.split('\t');
    return { status: Number(status), args: args.join('\t'), body: readFileSync(bodyFile!, 'utf8') };
  });
  return { calls, stderr };
}

describe('the README curl examples (npm start, demo shop)', () => {
  it('every curl example of README.md and docs/quick-start.md answers 2xx against npm start\'s demo shop (GraphQL ones without errors)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-readme-'));
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir }, { startTimeoutMs: 180_000 });
    const key = /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!;

    const failures: string[] = [];
    let total = 0;
    for (const page of PAGES) {
      const blocks = curlBlocks(readFileSync(join(ROOT, page), 'utf8'));
      expect(blocks.length, `${page} has curl examples`).toBeGreaterThan(0);
      for (const block of blocks) {
        if (unsafeCommands(block).length) { failures.push(`${page}: a curl example block also runs ${unsafeCommands(block).join('; ')}`); continue; }
        const { calls, stderr } = await runBlock(block, server.address, key);
        // Every curl of the block ran (a block that stopped half-way would hide the rest).
        if (calls.length !== curlCalls(block)) failures.push(`${page}: ${curlCalls(block)} curl calls written, ${calls.length} ran; stderr: ${stderr}`);
        for (const call of calls) {
          total++;
          const graphqlErrors = call.args.includes('/graphql') && /"errors"\s*:/.test(call.body);
          if (call.status < 200 || call.status > 299 || graphqlErrors) {
            failures.push(`${page}: ${call.status} for curl ${call.args.replaceAll(key, '$BOMCORE_KEY')}\n  ${call.body.slice(0, 400)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    // README: 9 reads, the read of the token, 2 PATCHes, GraphQL, openapi.json; the quick start: 5.
    expect(total).toBeGreaterThanOrEqual(18);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 300_000);
});
