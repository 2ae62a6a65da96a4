import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { curlCalls, pageExamples, shellCommands, unsafeCommands, type Example, type PageExamples } from '../helpers/doc-examples.ts';
import { DocShell } from '../helpers/doc-shell.ts';
import { prepareDocsDemo } from '../helpers/docs-demo.ts';
import { startServer, type Server } from '../helpers/server-process.ts';

/**
 * Every example of README.md and docs/*.md runs, as written, against `npm start`'s demo shop
 * (docs/contributing.md, "Examples in the docs"): each curl call answers 2xx, each ```graphql
 * operation answers without `errors` and with empty `userErrors`, unless the page says otherwise
 * right before the block. Blocks that are not meant to run say so and why, and are counted.
 *
 * The pages write the address `npm start` prints by default and the key as `$BOMCORE_KEY`; the test
 * sends them to its own server. One server runs every page twice:
 * - first as a newcomer reads them, in the README's reading order (README.md, then the pages its
 *   "Docs" section lists, in that order, then the pages it does not list), all on the one demo shop
 *   `npm start` loads, with the key it prints: a page must not depend on a value an earlier page
 *   changed (an `updatedAt` token, a priority), it reads what it needs live;
 * - then each page alone on a demo shop of its own (a copy of the demo under another shop id), so a
 *   page never depends on what an earlier page wrote either.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** The README's reading order: README.md, the pages its "Docs" section links to in that order, then every other page. */
export function readingOrder(readme: string, pages: string[]): string[] {
  const section = readme.slice(readme.search(/^## Docs\b/m));
  const listed = [...section.matchAll(/\]\((docs\/[\w.-]+\.md)\)/g)].map((m) => m[1]!).filter((p) => pages.includes(p));
  return [...new Set(['README.md', ...listed, ...pages])];
}
const READING_ORDER = readingOrder(readFileSync(join(ROOT, 'README.md'), 'utf8'), PAGES);
const ADDRESS_IN_DOCS = /(?:https?:\/\/)?(?:127\.0\.0\.1|localhost):3000/g;

const parsed = new Map<string, PageExamples>(PAGES.map((page) => [page, pageExamples(readFileSync(join(ROOT, page), 'utf8'))]));
const runnable = (page: string) => parsed.get(page)!.examples.some((e) => e.kind !== 'not run');
/** The shop a page runs on alone: a copy of the demo of its own. */
const shopOf = (page: string) => `docs-${basename(page, '.md').toLowerCase()}`;

let server: Server;
let dataDir = '';
const keys = new Map<string, string>();
const report: string[] = [];
const ran = new Map<string, Tally>();
const readInOrder: string[] = [];

/** Every `userErrors` list of an answer, wherever the payload sits. */
function userErrorCodes(value: unknown, codes: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) userErrorCodes(v, codes);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'userErrors' && Array.isArray(v)) codes.push(...v.map((e: { code?: string }) => e.code ?? '(no code selected)'));
      else userErrorCodes(v, codes);
    }
  }
  return codes;
}

/** What is wrong with a /graphql answer: any `errors`, and user errors other than the expected ones. */
function graphqlProblems(text: string, expected: string[] | null): string[] {
  let body: { data?: unknown; errors?: unknown[] } | { data?: unknown; errors?: unknown[] }[];
  try {
    body = JSON.parse(text.slice(Math.max(0, text.search(/^[[{]/m))));
  } catch {
    return [`the answer is not JSON: ${text.slice(0, 300)}`];
  }
  const problems: string[] = [];
  for (const result of Array.isArray(body) ? body : [body]) {
    if (result.errors?.length) problems.push(`errors: ${JSON.stringify(result.errors).slice(0, 600)}`);
  }
  const codes = userErrorCodes(body);
  const want = [...new Set(expected ?? [])].sort();
  const got = [...new Set(codes)].sort();
  if (want.join() !== got.join()) problems.push(`userErrors ${got.length ? got.join(', ') : 'empty'}, expected ${want.length ? want.join(', ') : 'none'}: ${JSON.stringify(body).slice(0, 600)}`);
  return problems;
}

/** A mutation's root fields must select `userErrors`: without it a refused mutation is a silent null. */
function unselectedUserErrors(text: string, data: unknown): string[] {
  if (!/^\s*mutation\b/m.test(text) || !data || typeof data !== 'object') return [];
  return Object.entries(data).filter(([, payload]) => payload && typeof payload === 'object' && !('userErrors' in payload)).map(([field]) => field);
}

async function runGraphql(example: Extract<Example, { kind: 'graphql' }>, key: string): Promise<string[]> {
  const response = await fetch(`${server.address}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: example.block.text, variables: example.variables }),
  });
  const text = await response.text();
  const problems = response.ok ? graphqlProblems(text, example.block.expectUserErrors) : [`HTTP ${response.status}: ${text.slice(0, 400)}`];
  if (response.ok && !problems.length) {
    const fields = unselectedUserErrors(example.block.text, (JSON.parse(text) as { data?: unknown }).data);
    if (fields.length) problems.push(`the mutation does not select userErrors on ${fields.join(', ')}`);
  }
  return problems;
}

async function runCurl(example: Extract<Example, { kind: 'curl' }>, shell: DocShell, key: string, tally: Tally): Promise<string[]> {
  const expected = example.block.expectStatuses;
  // A block that expects a 304 reads twice and counts on nothing changing in between. The server's
  // background work (the outbox drainer, every second, pushing what an earlier page's build run took
  // or setting a storefront level) may change the shop between the two calls, and then the second
  // answer is rightly a 200 with the new tag: a reader would run it again, and so does this, at most
  // three times, a drainer interval apart.
  let run = await shell.run(example.block.text.replace(ADDRESS_IN_DOCS, server.address));
  for (let attempt = 1; attempt < 3 && expected?.includes(304) && expected.join() !== run.calls.map((c) => c.status).join(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    run = await shell.run(example.block.text.replace(ADDRESS_IN_DOCS, server.address));
  }
  const { calls, failedCommands, stderr } = run;
  tally.curlCalls += calls.length;
  const problems: string[] = [];
  // Every call of the block ran (a block that stopped half-way would hide the rest).
  if (calls.length !== example.calls) problems.push(`${example.calls} curl calls written, ${calls.length} ran; stderr: ${stderr}`);
  for (const failed of failedCommands) problems.push(`a command failed (exit status, command): ${failed}`);
  if (expected && expected.join() !== calls.map((c) => c.status).join()) problems.push(`statuses ${calls.map((c) => c.status).join(' ')}, expected ${expected.join(' ')}`);
  for (const call of calls) {
    const what = `curl ${call.args.replaceAll(key, '$BOMCORE_KEY')}`;
    if (!expected && (call.status < 200 || call.status > 299)) problems.push(`${call.status} for ${what}\n  ${call.body.slice(0, 400)}`);
    else if (call.args.includes('/graphql')) problems.push(...graphqlProblems(call.body, example.block.expectUserErrors).map((p) => `${what}: ${p}`));
  }
  return problems;
}

/** What a page ran: curl calls made, GraphQL operations sent. */
interface Tally { curlCalls: number; operations: number }

/** Runs a page's examples in order against the server with `key`; what went wrong, each with its line. */
async function runExamples(examples: Example[], key: string, tally: Tally = { curlCalls: 0, operations: 0 }): Promise<string[]> {
  const failures: string[] = [];
  const shell = examples.some((e) => e.kind === 'curl') ? new DocShell({ BOMCORE_KEY: key }) : null;
  try {
    for (const example of examples) {
      if (example.kind === 'not run') continue;
      if (example.kind === 'graphql') tally.operations++;
      const found = example.kind === 'graphql' ? await runGraphql(example, key) : await runCurl(example, shell!, key, tally);
      failures.push(...found.map((p) => `line ${example.block.line} (${example.kind}): ${p}`));
    }
  } finally {
    await shell?.close();
  }
  return failures;
}

describe('the examples of README.md and docs/ (npm start, demo shop)', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'bomcore-docs-examples-'));
    const copies = PAGES.filter(runnable).map(shopOf);
    for (const [shop, key] of await prepareDocsDemo(dataDir, copies, inject('pgliteSnapshot'))) keys.set(shop, key);
    // A reader runs the examples minutes apart; this test runs every page's in seconds on one key, so
    // the key's request budget is raised (the rate limit has tests of its own, test/reliability).
    server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir, RATE_LIMIT_BURST: '10000' }, { startTimeoutMs: 180_000 });
    // The key `npm start` prints is the demo shop's, the one a reader exports as BOMCORE_KEY.
    keys.set('demo', /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!);
  }, 300_000);

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    // The data directory holds a whole PGlite (tens of MB): not left behind run after run.
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    console.log(`Examples of the docs, per page:\n${report.join('\n')}\nRead in order on the demo shop: ${readInOrder.join(' → ')}`);
  });

  // A newcomer's path: every page in the README's order on the one demo shop, what earlier pages wrote included.
  it.each(READING_ORDER)('read in order on the demo shop: %s runs as written, after the pages before it, without an error', async (page) => {
    const { examples, problems } = parsed.get(page)!;
    readInOrder.push(page);
    const failures = [...problems, ...await runExamples(examples, keys.get('demo')!)].map((p) => `${page} ${p}`);
    expect(failures).toEqual([]);
  }, 120_000);

  it.each(PAGES)('%s alone: every curl and GraphQL example runs as written on a fresh demo shop, without an error', async (page) => {
    const { examples, commandBlocks, problems } = parsed.get(page)!;
    const tally = { curlCalls: 0, operations: 0 };
    ran.set(page, tally);
    const failures = [...problems, ...await runExamples(examples, keys.get(shopOf(page)) ?? keys.get('demo')!, tally)].map((p) => `${page} ${p}`);
    const count = (kind: Example['kind']) => examples.filter((e) => e.kind === kind).length;
    const notRun = examples.flatMap((e) => (e.kind === 'not run' ? [`line ${e.block.line}: ${e.reason}`] : []));
    report.push(`  ${page}: ${count('curl')} curl blocks (${tally.curlCalls} calls), ${count('graphql')} GraphQL operations run; ${notRun.length} not run${notRun.length ? ` (${notRun.join('; ')})` : ''}; ${commandBlocks} command blocks`);
    expect(failures).toEqual([]);
  }, 120_000);

  it('the reading order is the README\'s: its "Docs" list first, every page of docs/ once', () => {
    expect(READING_ORDER.slice(0, 4)).toEqual(['README.md', 'docs/quick-start.md', 'docs/rest-client-guide.md', 'docs/deployment.md']);
    expect([...READING_ORDER].sort()).toEqual([...PAGES].sort());
    expect(readingOrder('intro [a](docs/b.md)\n## Docs\n- [c](docs/c.md)\n- [b](docs/b.md)\n', ['README.md', 'docs/a.md', 'docs/b.md', 'docs/c.md']))
      .toEqual(['README.md', 'docs/c.md', 'docs/b.md', 'docs/a.md']);
  });

  it('the check fails on a non-2xx call, a GraphQL error, an unexpected or missing user error, an unselected userErrors and an unmarked SDL block', async () => {
    const page = [
      '```sh', 'curl -s http://127.0.0.1:3000/api/v1/bills-of-materials/BOM-9999 -H "Authorization: Bearer $BOMCORE_KEY"', '```',
      '<!-- expect status: 404 -->',
      '```sh', 'curl -s http://127.0.0.1:3000/api/v1/bills-of-materials/BOM-9999 -H "Authorization: Bearer $BOMCORE_KEY"', '```',
      '```graphql', '{ rawMaterial(variantId: "VMAT-VAR-0001") { variantId } }', '```',
      '```graphql', 'mutation { updateCostFactor(costFactorId: "CF-NONE", input: { unitCost: "1" }) { costFactor { unitCost } userErrors { code } } }', '```',
      '<!-- expect userErrors: NOT_FOUND -->',
      '```graphql', 'mutation { updateCostFactor(costFactorId: "CF-NONE", input: { unitCost: "1" }) { costFactor { unitCost } userErrors { code } } }', '```',
      '<!-- expect userErrors: CONFLICT -->',
      '```graphql', '{ locations { locationId } }', '```',
      '```graphql', 'mutation { updateCostFactor(costFactorId: "CF-NONE", input: { unitCost: "1" }) { costFactor { unitCost } } }', '```',
      '```graphql', 'type Extra { id: ID! }', '```',
      '<!-- not run: an excerpt -->',
      '```graphql', 'type Extra { id: ID! }', '```',
    ].join('\n');
    const { examples, problems } = pageExamples(page);
    const failures = [...problems, ...await runExamples(examples, keys.get('demo')!)];
    expect(failures.map((f) => /^line (\d+)/.exec(f)?.[1])).toEqual(['25', '1', '8', '11', '19', '22']);
    expect(failures[0]).toMatch(/cannot run: it is SDL/);
    expect(failures[1]).toMatch(/404 for curl/);
    expect(failures[2]).toMatch(/errors: .*NOT_FOUND/);
    expect(failures[3]).toMatch(/userErrors NOT_FOUND, expected none/);
    expect(failures[4]).toMatch(/userErrors empty, expected CONFLICT/);
    expect(failures[5]).toMatch(/does not select userErrors on updateCostFactor/);
    expect(examples.filter((e) => e.kind === 'not run')).toHaveLength(1);
  });

  it('the pages were read: README.md and quick-start.md made their curl calls, every GraphQL page sent its operations', () => {
    // A page whose blocks were not found would pass by running nothing.
    expect(ran.get('README.md')!.curlCalls + ran.get('docs/quick-start.md')!.curlCalls).toBeGreaterThanOrEqual(18);
    for (const page of PAGES.filter((p) => /^docs\/graphql-(reads|writes|work-order-writes|federation)\.md$/.test(p))) {
      expect(ran.get(page)!.operations, page).toBeGreaterThanOrEqual(4);
    }
  });

  it('a shell block is read as bash reads it: continuation lines and multi-line quoted bodies are one command, comments are dropped', () => {
    const block = [
      'WO=wo_1   # a work order',
      "curl -s localhost:3000/graphql -d '[{ \"query\": \"{ a }\" },",
      "  { \"query\": \"{ b }\", \"note\": \"#1007\" }]' \\",
      '  -H "X: y"',
      '# npm test',
      'echo "$WO"',
    ].join('\n');
    expect(shellCommands(block)).toEqual([
      'WO=wo_1',
      'curl -s localhost:3000/graphql -d \'[{ "query": "{ a }" },   { "query": "{ b }", "note": "#1007" }]\'    -H "X: y"',
      'echo "$WO"',
    ]);
    expect(curlCalls(block)).toBe(1);
    expect(unsafeCommands(`${block}\nnpm test`)).toEqual(['npm test']);
  });

  it('the server that ran every page stops cleanly on SIGTERM', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
