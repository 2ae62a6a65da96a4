import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Issue 33 item 2: each client recipe of the docs compiles as written. The test follows the recipe
// in an empty folder, in page order: a block titled with a file name (```json title="package.json")
// is written as that file, verbatim; a ```sh block's commands run verbatim in bash (installs from
// the npm registry, with npm's cache preferred; generation from a live server). The address the
// docs write is the test server's. The recipe's own `npx tsc` must pass, under its tsconfig, which
// must be strict; a failing command fails the test with its output.

const ROOT = join(import.meta.dirname, '..', '..');
const ADDRESS_IN_DOCS = /http:\/\/127\.0\.0\.1:3000/g;

interface Step { kind: 'file'; path: string; text: string } 
type RecipeStep = Step | { kind: 'commands'; text: string };

/** The steps of a page's recipe: the blocks from the heading `from` to the heading `to`. */
export function recipeSteps(markdown: string, from: string, to: string): RecipeStep[] {
  const start = markdown.indexOf(`\n${from}\n`);
  const end = markdown.indexOf(`\n${to}\n`, start);
  if (start < 0 || end < 0) throw new Error(`no heading "${from}" followed by "${to}"`);
  const section = markdown.slice(start, end);
  const steps: RecipeStep[] = [];
  for (const block of section.matchAll(/^```(\w+)(?: title="([^"]+)")?\n([\s\S]*?)^```$/gm)) {
    const [, lang, title, text] = block;
    if (title) steps.push({ kind: 'file', path: title, text: text! });
    else if (lang === 'sh') steps.push({ kind: 'commands', text: text! });
  }
  return steps;
}

/** Runs a shell block in bash from `cwd` (set -e: the first failing command stops it); the folder it ends in. */
function runCommands(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string; cwd: string }> {
  const marker = join(mkdtempSync(join(tmpdir(), 'bomcore-recipe-cwd-')), 'cwd');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', `${text}\npwd > '${marker}'`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, cwd: existsSync(marker) ? readFileSync(marker, 'utf8').trim() : cwd }));
  });
}

let t: TestApp;
let address = '';
const work = mkdtempSync(join(tmpdir(), 'bomcore-recipes-'));

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  address = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Follows a recipe in an empty folder; what each command block printed, and the folder it ends in. */
async function follow([page, from, to]: Recipe): Promise<{ dir: string; log: string }> {
  const steps = recipeSteps(readFileSync(join(ROOT, page), 'utf8'), from, to);
  let dir = mkdtempSync(join(work, 'empty-'));
  // The system's npm and Node, as a user has them; npm's cache first, so a second run needs no network.
  const env = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  let log = '';
  for (const step of steps) {
    if (step.kind === 'file') {
      mkdirSync(dirname(join(dir, step.path)), { recursive: true });
      writeFileSync(join(dir, step.path), step.text.replaceAll(ADDRESS_IN_DOCS, address));
      continue;
    }
    const ran = await runCommands(step.text.replaceAll(ADDRESS_IN_DOCS, address), dir, env);
    log += ran.output;
    if (ran.code !== 0) throw new Error(`${page}: the block\n${step.text}failed (exit ${ran.code}):\n${ran.output.slice(-4000)}`);
    dir = ran.cwd;
  }
  return { dir, log };
}

/** A recipe: its page, the heading it starts at, the heading after it. */
type Recipe = readonly [page: string, from: string, to: string];
const REST: Recipe = ['docs/rest-client-guide.md', '## A typed TypeScript client', '## CORS: calling from a browser'];
const GRAPHQL: Recipe = ['docs/graphql-codegen.md', '## From an empty folder', '## How it is tested'];

describe('client recipes compile as written, from an empty folder', () => {
  it('rule: the recipes list every file they need (package.json with "type": "module", a strict tsconfig) and end with npx tsc', () => {
    for (const [page, from, to] of [REST, GRAPHQL]) {
      const markdown = readFileSync(join(ROOT, page), 'utf8');
      const steps = recipeSteps(markdown, from, to);
      const file = (path: string) => steps.find((s): s is Step => s.kind === 'file' && s.path === path);
      expect(JSON.parse(file('package.json')!.text).type, page).toBe('module');
      expect(JSON.parse(file('tsconfig.json')!.text).compilerOptions.strict, page).toBe(true);
      expect(markdown, page).not.toMatch(/npx bomcore/);
      const commands = steps.filter((step) => step.kind === 'commands').map((step) => step.text).join('');
      expect(commands.trim().split('\n').at(-1), page).toBe('npx tsc');
    }
  });

  it('rule: docs/rest-client-guide.md — openapi-typescript from GET /api/v1/openapi.json, openapi-fetch, npx tsc under --strict', async () => {
    const { dir } = await follow(REST);
    expect(readFileSync(join(dir, 'src', 'bomcore-api.d.ts'), 'utf8')).toContain('"/api/v1/raw-materials"');
    // The recipe's own `npx tsc` passed; so does the compiler with --strict on the command line.
    const strict = await runCommands('npx tsc --noEmit --strict -p .', dir, process.env);
    expect(strict.output).toBe('');
    expect(strict.code).toBe(0);
  }, 300_000);

  it('rule: docs/graphql-codegen.md — the SDL from GET /graphql/schema.graphql (no key), graphql-codegen, npx tsc under --strict', async () => {
    const { dir } = await follow(GRAPHQL);
    expect(readFileSync(join(dir, 'schema.graphql'), 'utf8')).toBe(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
    expect(readFileSync(join(dir, 'src', 'generated', 'operations.ts'), 'utf8')).toContain('export type MaterialUsesQuery =');
    const strict = await runCommands('npx tsc --noEmit --strict -p .', dir, process.env);
    expect(strict.output).toBe('');
    expect(strict.code).toBe(0);
  }, 300_000);
});
