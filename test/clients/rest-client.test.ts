import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Issue 12: a new user generates a typed client from the served OpenAPI document with openapi-typescript,
// and it compiles (strict) and runs with openapi-fetch against a live server. The scenario (list, read,
// buildable, breakdown batch, inventory batch, a transition refused with 409 and its retry) is
// test/clients/rest/scenario.ts.txt, copied beside the generated types and run by Node as a user would.

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url);
const demo = JSON.parse(readFileSync(new URL('data/demo-dataset.json', ROOT), 'utf8'));
const shop = uniqueShopId('rest-client');
const VIRTUAL = demo.materials.find((m: { variantId: string }) => m.variantId.startsWith('VMAT-VAR-')).variantId as string;
const READY = demo.workOrders.find((w: { status: string }) => w.status === 'ready').workOrderId as string;
const ORDERS = demo.platform.orders.slice(0, 2).map((o: { orderId: string }) => o.orderId) as string[];

let t: TestApp;
let baseUrl: string;
let key: string;
let dir: string;
let types: string;

/** Strict type check of files in the client directory, as `tsc --noEmit --strict` would; returns the messages. */
function typeCheck(files: string[]): string[] {
  const options: ts.CompilerOptions = {
    strict: true, noEmit: true, noUncheckedIndexedAccess: true, skipLibCheck: true,
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true, verbatimModuleSyntax: true, types: ['node'], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  };
  const program = ts.createProgram(files.map((f) => join(dir, f)), options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.slice(dir.length + 1)}:${line + 1} TS${d.code} ${text}`;
  });
}

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset({ ...demo, shop: { ...demo.shop, id: shop } }));
  key = await t.createKey(shop, ['read', 'write']);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

  // The client project: generated types, the scenario, and the repository's node_modules (openapi-fetch, @types/node).
  dir = await mkdtemp(join(tmpdir(), 'bomcore-rest-client-'));
  await symlink(new URL('node_modules', ROOT).pathname, join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'bomcore-client', private: true, type: 'module' }));
  types = astToString(await openapiTS(new URL(`${baseUrl}/api/v1/openapi.json`)));
  await writeFile(join(dir, 'api.ts'), types);
  await copyFile(new URL('test/clients/rest/scenario.ts.txt', ROOT), join(dir, 'scenario.ts'));
});

afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a TypeScript client generated from GET /api/v1/openapi.json (openapi-typescript + openapi-fetch)', () => {
  it('names every resource and row as a component and makes parameters with defaults optional', () => {
    for (const name of ['RawMaterial', 'RawMaterialListRow', 'BillOfMaterials', 'WorkOrder', 'WorkOrderListRow', 'BuildRun', 'Problem', 'OrderBomBreakdown', 'Location', 'Assignee']) {
      expect(types, `components['schemas']['${name}']`).toMatch(new RegExp(`\\n\\s+${name}: \\{`));
    }
    // The bug of issue 12: `page` and friends were required (TS2741 Property 'page' is missing).
    for (const parameter of ['page', 'pageSize', 'includeInactive', 'includeConnections', 'limit', 'offset']) {
      expect(types, parameter).toMatch(new RegExp(`\\n\\s+${parameter}\\?: (number|boolean);`));
    }
  });

  it('compiles under strict TypeScript, and a wrong call does not (the check is real)', async () => {
    expect(typeCheck(['api.ts', 'scenario.ts'])).toEqual([]);
    // Every parameter with a default may be left out (TS2741 before issue 12).
    await writeFile(join(dir, 'defaults.ts'), [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './api.ts';",
      'const client = createClient<paths>({ baseUrl: "http://localhost" });',
      "await client.GET('/api/v1/raw-materials');",
      "await client.GET('/api/v1/bills-of-materials');",
      "await client.GET('/api/v1/work-orders');",
      "await client.GET('/api/v1/assignees');",
      "await client.GET('/api/v1/raw-materials/{variantId}', { params: { path: { variantId: 'VMAT-VAR-1' } } });",
      "await client.GET('/api/v1/work-orders/{id}', { params: { path: { id: 'wo_1' } } });",
      "await client.GET('/api/v1/bill-versions/{ownerType}/{ownerId}', { params: { path: { ownerType: 'bom', ownerId: 'BOM-1' } } });",
      '',
    ].join('\n'));
    expect(typeCheck(['defaults.ts'])).toEqual([]);
    await writeFile(join(dir, 'wrong.ts'), [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './api.ts';",
      'const client = createClient<paths>({ baseUrl: "http://localhost" });',
      "await client.GET('/api/v1/raw-materials', { params: { query: { pageSize: 'ten' } } });",
      "await client.GET('/api/v1/work-orders/{id}', {});",
      '',
    ].join('\n'));
    const errors = typeCheck(['wrong.ts']);
    expect(errors.some((e) => e.startsWith('wrong.ts:4 ') && e.includes("'string' is not assignable to type 'number'"))).toBe(true);
    expect(errors.some((e) => e.startsWith('wrong.ts:5 '))).toBe(true);
  });

  // Issue 30: status and tags became arrays in the document, and a client generated before
  // (`status: 'draft'`) stopped compiling. Every list parameter takes one value or an array.
  it('every list parameter compiles with one value and with an array (status, tags, locationIds, vendorFilter, ids)', async () => {
    const forms = (query: (one: boolean) => string) => [true, false].map((one) => query(one));
    const byRoute: [string, string, (one: boolean) => string][] = [
      ['/api/v1/work-orders', '', (one) => `status: ${one ? "'draft'" : "['draft', 'ready']"}, tags: ${one ? "'fair'" : "['fair', 'rush']"}`],
      ['/api/v1/raw-materials', '', (one) => `vendorFilter: ${one ? "'WaxCo'" : "['WaxCo', 'WickWorks']"}`],
      ['/api/v1/order-bom-breakdown', '', (one) => `ids: ${one ? "'5001'" : "['5001', '5002']"}`],
      ...['inventory', 'residual', 'preassembled', 'commitments', 'shelf-allocation', 'work-order-allocation'].map((read): [string, string, (one: boolean) => string] =>
        [`/api/v1/raw-materials/{variantId}/${read}`, "path: { variantId: '44001' }, ", (one) => `locationIds: ${one ? "'101'" : "['101', '102']"}`]),
      ['/api/v1/assembly-bills/{id}/preassembled', "path: { id: 'ASM-1' }, ", (one) => `locationIds: ${one ? "'101'" : "['101', '102']"}`],
      ['/api/v1/bills-of-materials/{id}/buildable', "path: { id: 'BOM-1' }, ", (one) => `locationIds: ${one ? "'101'" : "['101', '102']"}`],
    ];
    await writeFile(join(dir, 'lists.ts'), [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './api.ts';",
      'const client = createClient<paths>({ baseUrl: "http://localhost" });',
      ...byRoute.flatMap(([path, params, query]) => forms(query).map((q) => `await client.GET('${path}', { params: { ${params}query: { ${q} } } });`)),
      '',
    ].join('\n'));
    expect(typeCheck(['lists.ts'])).toEqual([]);
    // The check is real: a number where a list parameter's values are text does not compile.
    await writeFile(join(dir, 'lists-wrong.ts'), [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './api.ts';",
      'const client = createClient<paths>({ baseUrl: "http://localhost" });',
      "await client.GET('/api/v1/work-orders', { params: { query: { status: 7 } } });",
      '',
    ].join('\n'));
    expect(typeCheck(['lists-wrong.ts']).some((e) => e.startsWith('lists-wrong.ts:4 '))).toBe(true);
  });

  it('runs the scenario against a live server: list, read, buildable, breakdown batch, inventory batch, 409 then retry', async () => {
    const { stdout } = await run(process.execPath, [join(dir, 'scenario.ts'), baseUrl, key, VIRTUAL, 'BOM-1001', ORDERS.join(','), READY], { cwd: dir, timeout: 60_000 });
    const seen = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(seen.listed).toBe(demo.materials.length);
    expect(seen.firstPageSize).toBe(50);
    expect(seen.virtualRows).toBeGreaterThan(0);
    expect(seen.material.variantId).toBe(VIRTUAL);
    expect(seen.buildable.length).toBeGreaterThan(0);
    expect(seen.breakdowns).toEqual(ORDERS);
    expect(seen.inventory.okCount).toBe(2);
    expect(seen.conflict).toEqual({ status: 409, code: 'CONFLICT' });
    expect(seen.retried).toEqual({ status: 200, from: 'ready', to: 'in_progress' });
  });
});

describe('operationIds', () => {
  it('are unique and stable: a client\'s method names do not change under it', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const ids = Object.entries<Record<string, { operationId: string }>>(doc.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`));
    expect(new Set(ids.map((i) => i.split(' ')[2])).size).toBe(ids.length);
    expect(ids.sort()).toEqual([
      'GET /api/v1/assembly-bills/{id}/preassembled getAssemblyBillPreassembled',
      'GET /api/v1/assignees listAssignees',
      'GET /api/v1/bill-versions/{ownerType}/{ownerId} listBillVersions',
      'GET /api/v1/bills-of-materials listBillsOfMaterials',
      'GET /api/v1/bills-of-materials/{id} getBillOfMaterials',
      'GET /api/v1/bills-of-materials/{id}/buildable getBillOfMaterialsBuildable',
      'GET /api/v1/bills-of-materials/{id}/location-rules getBillOfMaterialsLocationRules',
      'GET /api/v1/locations listLocations',
      'GET /api/v1/openapi.json getOpenApiDocument',
      'GET /api/v1/order-bom-breakdown listOrderBomBreakdowns',
      'GET /api/v1/order-bom-breakdown/{id} getOrderBomBreakdown',
      'GET /api/v1/raw-materials listRawMaterials',
      'GET /api/v1/raw-materials/{variantId} getRawMaterial',
      'GET /api/v1/raw-materials/{variantId}/commitments getRawMaterialCommitments',
      'GET /api/v1/raw-materials/{variantId}/inventory getRawMaterialInventory',
      'GET /api/v1/raw-materials/{variantId}/preassembled getRawMaterialPreassembled',
      'GET /api/v1/raw-materials/{variantId}/residual getRawMaterialResidual',
      'GET /api/v1/raw-materials/{variantId}/shelf-allocation getRawMaterialShelfAllocation',
      'GET /api/v1/raw-materials/{variantId}/work-order-allocation getRawMaterialWorkOrderAllocation',
      'GET /api/v1/work-orders listWorkOrders',
      'GET /api/v1/work-orders/{id} getWorkOrder',
      'GET /api/v1/work-orders/{id}/build-runs listWorkOrderBuildRuns',
      'GET /api/v1/work-orders/{id}/material-plan getWorkOrderMaterialPlan',
      'PATCH /api/v1/raw-materials/{variantId} updateRawMaterial',
      'PATCH /api/v1/raw-materials/{variantId}/inventory adjustRawMaterialInventory',
      'PATCH /api/v1/work-orders/{id} updateWorkOrder',
      'PATCH /api/v1/work-orders/{id}/build-runs startBuildRun',
      'PATCH /api/v1/work-orders/{id}/transition transitionWorkOrder',
    ]);
  });
});
