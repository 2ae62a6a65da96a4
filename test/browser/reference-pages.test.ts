import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/kernel/config.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rules (issue 12, "In the browser"): in a real browser (Debian's headless Chromium),
// - the REST reference at /api/v1/docs renders every operation of the served OpenAPI document, and a
//   "Try it out" call with an API key renders the live answer;
// - GraphiQL at /graphiql renders the schema (the docs explorer shows Query) and a live query sent
//   with the API key in the headers editor renders its result;
// - both pages load everything from this server (no CDN: any other request fails the test) and
//   break no Content-Security-Policy rule; neither page itself needs a key.
// Screenshots are written outside the repository, under os.tmpdir().
//
// Needs /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). In CI (CI=true) or with
// BOMCORE_BROWSER=1 a missing Chromium fails the test. Elsewhere (`npm test` on a fresh machine) it is
// skipped with a notice saying how to install it; BOMCORE_SKIP_BROWSER=1 skips it explicitly.

const CHROMIUM = '/usr/bin/chromium';
const REQUIRED = Boolean(process.env.CI) || process.env.BOMCORE_BROWSER === '1';
const SKIP = process.env.BOMCORE_SKIP_BROWSER === '1' || (!REQUIRED && !existsSync(CHROMIUM));
if (SKIP && process.env.BOMCORE_SKIP_BROWSER !== '1') {
  console.warn(`${CHROMIUM} is missing: the browser test is skipped (install it with \`sudo apt-get install -y chromium\`; CI runs it).`);
}
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const BROWSER_TIMEOUT_MS = 180_000;

let t: TestApp;
let origin: string;
let key: string;
let context: BrowserContext;
let userDataDir: string;
const screenshots = join(tmpdir(), `bomcore-browser-${process.pid}`);
const shop = uniqueShopId('browser');

/** What a page did that it must not: requests to other origins, CSP violations, uncaught errors. */
interface Misconduct { foreign: string[]; csp: string[]; errors: string[] }

async function openPage(): Promise<{ page: Page; misconduct: Misconduct }> {
  const page = await context.newPage();
  const misconduct: Misconduct = { foreign: [], csp: [], errors: [] };
  // Everything must come from this server: a request elsewhere (a CDN, an online validator) is refused and recorded.
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    misconduct.foreign.push(url);
    return route.abort();
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) misconduct.csp.push(message.text());
  });
  page.on('pageerror', (error) => misconduct.errors.push(error.message));
  return { page, misconduct };
}

async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(screenshots, name);
  await page.screenshot({ path, fullPage: false });
  expect(statSync(path).size, path).toBeGreaterThan(1000);
  return path;
}

/** The text a locator shows; Monaco renders spaces as no-break spaces. */
async function textOf(locator: Locator): Promise<string> {
  return (await locator.innerText()).replaceAll('\u00a0', ' ');
}

/** Replaces the whole text of a Monaco editor (GraphiQL's editors) as a user would: select all, type. */
async function replaceEditorText(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  // Inserted as one piece: typed key by key, the editor would auto-close every bracket.
  await page.keyboard.insertText(text);
  await expect.poll(async () => (await textOf(editor.locator('.view-lines'))).replace(/\s+/g, ' ').trim()).toBe(text);
}

describe.skipIf(SKIP)('the reference pages in headless Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: the browser test needs Debian's Chromium. Install it with `
        + '`sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium` (.ci/run does this), '
        + 'or set BOMCORE_SKIP_BROWSER=1 to skip the browser test explicitly.');
    }
    t = await createTestApp({ config: { apiDocs: true, graphql: { ...loadConfig({}).graphql, introspection: true, graphiql: true } } });
    await t.load(toDataset(datasetJson(shop)));
    key = await t.createKey(shop, ['read']);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    mkdirSync(screenshots, { recursive: true });
    userDataDir = mkdtempSync(join(tmpdir(), 'bomcore-chromium-profile-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: CHROMIUM_FLAGS, viewport: { width: 1280, height: 900 },
    });
    context.setDefaultTimeout(30_000);
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await t?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    if (existsSync(screenshots)) console.info(`browser screenshots: ${screenshots}`);
  });

  it('/api/v1/docs renders every operation of the OpenAPI document, no key needed, nothing from elsewhere', async () => {
    const { page, misconduct } = await openPage();
    const response = await page.goto(`${origin}/api/v1/docs`);
    expect(response?.status()).toBe(200);
    const ui = page.locator('#swagger-ui');
    await expect.poll(() => ui.innerText(), { timeout: 60_000 }).toContain('listRawMaterials');
    const text = await ui.innerText();
    const document = t.app.swagger() as unknown as { info: { title: string }; paths: Record<string, Record<string, { operationId: string }>> };
    expect(text).toContain(document.info.title);
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.values(methods).map((op) => ({ path, id: op.operationId })));
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, id } of operations) {
      expect(text, `operation ${id}`).toContain(id);
      expect(text, `path ${path}`).toContain(path);
    }
    const shot = await screenshot(page, 'api-docs.png');
    expect(shot.startsWith(process.cwd())).toBe(false);
    expect(misconduct).toEqual({ foreign: [], csp: [], errors: [] });
    await page.close();
  }, BROWSER_TIMEOUT_MS);

  it('/api/v1/docs: "Try it out" with the API key set in "Authorize" renders the live answer of listLocations', async () => {
    const { page, misconduct } = await openPage();
    await page.goto(`${origin}/api/v1/docs`);
    await page.locator('.btn.authorize').first().click();
    await page.locator('.modal-ux input').first().fill(key);
    await page.locator('.modal-ux .btn.authorize').click();
    await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();
    const operation = page.locator('#operations-locations-listLocations');
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const live = operation.locator('.live-responses-table');
    await expect.poll(() => live.innerText(), { timeout: 60_000 }).toContain('Main Workshop');
    expect(await live.innerText()).toContain('apiVersion');
    await screenshot(page, 'api-docs-try-it-out.png');
    expect(misconduct).toEqual({ foreign: [], csp: [], errors: [] });
    await page.close();
  }, BROWSER_TIMEOUT_MS);

  it('/graphiql renders the schema (docs explorer: Query) and a live query with the key renders its result', async () => {
    const { page, misconduct } = await openPage();
    const response = await page.goto(`${origin}/graphiql`);
    expect(response?.status()).toBe(200);
    // The page holds no key: the user types it in the headers editor, then the schema can be fetched.
    await replaceEditorText(page, page.locator('.monaco-editor[data-uri$="headers.json"]'), JSON.stringify({ Authorization: `Bearer ${key}` }));
    await page.getByRole('button', { name: /Re-fetch GraphQL schema/ }).click();
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const explorer = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => textOf(explorer), { timeout: 60_000 }).toMatch(/query:\s*Query/);
    await explorer.getByText('Query', { exact: true }).first().click();
    await expect.poll(() => textOf(explorer)).toContain('rawMaterials');

    await replaceEditorText(page, page.locator('.graphiql-query-editor .monaco-editor'), 'query Locations { locations { locationId name } }');
    await page.getByRole('button', { name: /Execute query/ }).click();
    const result = page.locator('.result-window');
    await expect.poll(() => textOf(result), { timeout: 60_000 }).toContain('Main Workshop');
    const body = JSON.parse(await textOf(result)) as { data?: { locations: { locationId: string; name: string }[] }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data!.locations.map((l) => l.name).sort()).toEqual(['Annex', 'Downtown Store', 'Main Workshop']);
    await screenshot(page, 'graphiql.png');
    expect(misconduct).toEqual({ foreign: [], csp: [], errors: [] });
    await page.close();
  }, BROWSER_TIMEOUT_MS);

  it('/graphiql runs a subscription over graphql-ws with the key of its headers editor: a stock move made meanwhile shows in its result', async () => {
    const { page, misconduct } = await openPage();
    expect((await page.goto(`${origin}/graphiql`))?.status()).toBe(200);
    await replaceEditorText(page, page.locator('.monaco-editor[data-uri$="headers.json"]'), JSON.stringify({ Authorization: `Bearer ${key}` }));
    await replaceEditorText(page, page.locator('.graphiql-query-editor .monaco-editor'), 'subscription Moves { stockLevelChanged { variantId locationId before after } }');
    // GraphiQL parses the editor's text after a pause; sent before that, the operation is not yet known to be a subscription.
    await page.waitForTimeout(1000);
    await page.getByRole('button', { name: /Execute query/ }).click();
    const result = page.locator('.result-window');
    // The socket's connection_init carries the editor's headers; a move made after it subscribed arrives in the result pane.
    const writeKey = await t.createKey(shop, ['write']);
    await expect.poll(async () => {
      const res = await t.patch('/api/v1/raw-materials/VMAT-VAR-0001/inventory', writeKey, { updates: [{ locationId: '101', delta: 1 }] });
      expect(res.statusCode).toBe(200);
      return textOf(result);
    }, { timeout: 60_000, interval: 1000 }).toContain('VMAT-VAR-0001');
    expect(await textOf(result)).toContain('"locationId": "101"');
    expect(misconduct).toEqual({ foreign: [], csp: [], errors: [] });
    await page.close();
  }, BROWSER_TIMEOUT_MS);
});
