import { globSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import { buildSchema, parse, validate, type OperationDefinitionNode } from 'graphql';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import codegenConfig from './graphql/codegen.ts';

// Rule (issue 12, "Generated clients, tested in CI"; issue 18, a codegen recipe): GraphQL Code
// Generator run with the recipe of docs/graphql-codegen.md — the config test/clients/graphql/codegen.ts,
// shown there verbatim, `strictScalars` on — over schema/schema.graphql and a dashboard's operations
// (test/clients/graphql/operations.graphql) produces types that compile under the project's strict
// TypeScript settings, together with code that uses them as a client would; the operations are valid
// against the schema and answer without errors on a live app. A type error in the generated code or
// in the usage fails the test with the compiler's messages; a scalar the config does not map fails
// the generation.

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA_FILE = join(ROOT, 'schema', 'schema.graphql');
const OPERATIONS_FILE = join(import.meta.dirname, 'graphql', 'operations.graphql');
const CONFIG_FILE = join(import.meta.dirname, 'graphql', 'codegen.ts');
const RECIPE_DOC = join(ROOT, 'docs', 'graphql-codegen.md');
const PLUGINS = { typescript: typescriptPlugin, 'typescript-operations': operationsPlugin };

/** Client code a dashboard would write against the generated types; every line must type-check. */
const USAGE = `import type {
  BomWithBuildableQuery, BomWithBuildableQueryVariables, CreateWorkOrderMutation, CreateWorkOrderMutationVariables,
  MaterialsPageQuery, MaterialsPageQueryVariables, MaterialUsesQuery, MoveWorkOrderMutationVariables, WorkOrderDetailQuery, WorkOrderStatus,
} from './generated/operations.ts';
import type { RawMaterial, WorkOrder } from './generated/schema-types.ts';

export const materialsVariables: MaterialsPageQueryVariables = {
  first: 25, search: 'wick', originFilter: 'virtual', usageFilter: 'used', vendorFilter: ['WickWorks'], sortBy: 'productName', sortOrder: 'asc',
};

export function materialRows(result: MaterialsPageQuery): { id: string; label: string; stock: string; next: string | null }[] {
  const page = result.rawMaterialConnection;
  return page.nodes.map((m) => ({
    id: m.variantId,
    label: [m.productName, m.variantName ?? '', m.sku ?? ''].join(' / '),
    stock: m.levels.map((l) => \`\${l.locationName ?? l.locationId}: \${l.available}\`).join(', ') || m.inventoryQuantity,
    next: page.pageInfo.hasNextPage ? page.pageInfo.endCursor ?? null : null,
  }));
}

/** The BOMs that use a material, and the open work orders building each: one request through the graph's links. */
export function buildsUsing(result: MaterialUsesQuery): { bomId: string; perUnit: string; workOrders: string[] }[] {
  return result.rawMaterial.connections.boms.flatMap((use) => (use.bom ? [{
    bomId: use.bom.bomId, perUnit: use.quantity, workOrders: use.bom.workOrders.nodes.map((w) => \`\${w.shortId} (\${w.status})\`),
  }] : []));
}

export const bomVariables: BomWithBuildableQueryVariables = { bomId: 'BOM-1001', locationIds: ['101'] };

export function buildableAt(result: BomWithBuildableQuery, locationId: string): number {
  const bom = result.bom;
  const at = bom.buildable.perLocation.find((l) => l.locationId === locationId);
  return at?.maxBuildable ?? bom.buildable.totals.maxBuildable;
}

export const createVariables: CreateWorkOrderMutationVariables = {
  input: { name: 'Candles for Friday', sourceType: 'bom', productionLocationId: '101', items: [{ bomId: 'BOM-1001', quantity: '2' }] },
};

/** A mutation answers a payload: what it made, or null and the user errors saying why (each with the path of its field). */
export function created(result: CreateWorkOrderMutation): { id: string; status: WorkOrderStatus; expectedUpdatedAt: string } | { problems: string[] } {
  const made = result.createWorkOrder?.createdWorkOrder;
  if (!made) return { problems: (result.createWorkOrder?.userErrors ?? []).map((e) => \`\${e.code} \${(e.field ?? []).join('.')}: \${e.message}\`) };
  return { id: made.workOrderId, status: made.workOrder.status, expectedUpdatedAt: made.updatedAt };
}

export function qcSummary(result: WorkOrderDetailQuery): { approved: number; failed: number; open: string[] } {
  const wo = result.workOrder;
  let approved = 0;
  let failed = 0;
  for (const review of wo.qcReviews) {
    for (const item of review.items) {
      approved += Number(item.approvedQuantity);
      failed += Number(item.failedQuantity);
    }
  }
  return { approved, failed, open: wo.items.filter((i) => Number(i.remainingQuantity) > 0).map((i) => i.itemId) };
}

export function nextMove(result: WorkOrderDetailQuery): MoveWorkOrderMutationVariables | null {
  const move = result.workOrder.availableTransitions[0];
  return move ? { workOrderId: result.workOrder.workOrderId, expectedUpdatedAt: result.workOrder.updatedAt, to: move.to } : null;
}

/** The operation's status is the schema's WorkOrderStatus: the two generated files agree. */
export function sameStatus(result: WorkOrderDetailQuery): WorkOrder['status'] {
  return result.workOrder.status;
}

/** A full schema type, for code that handles any selection of it. */
export function describeMaterial(m: Pick<RawMaterial, 'variantId' | 'productName' | 'unitCost'>): string {
  return \`\${m.productName} (\${m.variantId}) at \${m.unitCost ?? 'no cost'}\`;
}

// @ts-expect-error: a Decimal is a string, not a number.
export const wrongQuantity: CreateWorkOrderMutationVariables = { input: { name: 'x', sourceType: 'bom', items: [{ bomId: 'BOM-1001', quantity: 2 }] } };
// @ts-expect-error: the status is one of the schema's values.
export const wrongStatus: WorkOrderStatus = 'shipped';
`;

/** Type-checks files with the project's compiler options (strict, noUncheckedIndexedAccess, erasableSyntaxOnly, …). */
function typeCheck(dir: string, files: string[]): string[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent({ compilerOptions: { ...config.config.compilerOptions, types: [] }, files }, ts.sys, dir);
  expect(parsed.options.strict).toBe(true);
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return `${where}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/**
 * What `npx graphql-codegen` does with the config in a client project `project`: reads its `schema`
 * and `documents`, then writes each `generates` file with its plugins and the shared `config`.
 * GraphQL Code Generator 6 lays the types out in two files: `schema-types.ts` (plugin typescript:
 * every type of the schema) and `operations.ts` (plugin typescript-operations: the result and
 * variables types of each operation with the enums and inputs they use; standalone since version 6).
 */
async function runCodegen(project: string): Promise<Record<string, string>> {
  const schema = parse(readFileSync(join(project, codegenConfig.schema), 'utf8'));
  const documents = globSync(codegenConfig.documents, { cwd: project }).map((file) => ({
    location: file, document: parse(readFileSync(join(project, file), 'utf8')),
  }));
  const written: Record<string, string> = {};
  for (const [file, output] of Object.entries(codegenConfig.generates)) {
    const source = await codegen({
      filename: file, schema, documents, config: { ...codegenConfig.config },
      plugins: output.plugins.map((name) => ({ [name]: {} })), pluginMap: PLUGINS,
    });
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), source);
    written[file] = source;
  }
  return written;
}

/**
 * A client project in `into` as the recipe sets it up: `package.json` (ES modules, as in this
 * project), the client schema as `schema.graphql`, the dashboard's operations under `src/`, the
 * generated files and `src/usage.ts`. Returns the files to type-check.
 */
async function clientProject(into: string, usage: string, schemaText = schemaSource): Promise<{ files: string[]; generated: Record<string, string> }> {
  mkdirSync(join(into, 'src'), { recursive: true });
  writeFileSync(join(into, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(into, 'schema.graphql'), schemaText);
  writeFileSync(join(into, 'src', 'dashboard.graphql'), operationsSource);
  writeFileSync(join(into, 'src', 'usage.ts'), usage);
  const generated = await runCodegen(into);
  return { files: [...Object.keys(generated), 'src/usage.ts'], generated };
}

const schemaSource = readFileSync(SCHEMA_FILE, 'utf8');
const operationsSource = readFileSync(OPERATIONS_FILE, 'utf8');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bomcore-graphql-codegen-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GraphQL Code Generator over schema/schema.graphql and the dashboard operations', () => {
  it('the operations are valid against the schema', () => {
    const errors = validate(buildSchema(schemaSource), parse(operationsSource));
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('the recipe in docs/graphql-codegen.md is test/clients/graphql/codegen.ts, verbatim', () => {
    expect(readFileSync(RECIPE_DOC, 'utf8')).toContain(`\`\`\`ts title="codegen.ts"\n${readFileSync(CONFIG_FILE, 'utf8')}\`\`\`\n`);
    expect(codegenConfig.config.strictScalars).toBe(true);
  });

  it('generates types (typescript + typescript-operations) that compile strictly with a client that uses them', async () => {
    const { files, generated } = await clientProject(dir, USAGE);
    const operations = generated['src/generated/operations.ts']!;
    const schemaTypes = generated['src/generated/schema-types.ts']!;
    for (const name of ['MaterialsPageQuery', 'BomWithBuildableQuery', 'WorkOrderDetailQuery', 'MaterialUsesQuery', 'CreateWorkOrderMutationVariables', 'MoveWorkOrderMutation']) {
      expect(operations, name).toContain(`export type ${name} =`);
    }
    for (const name of ['RawMaterial', 'Bom', 'WorkOrder', 'QcReview', 'MaterialUsage', 'CreateWorkOrderInput']) {
      expect(schemaTypes, name).toContain(`export type ${name} =`);
    }
    const diagnostics = typeCheck(dir, files);
    expect(diagnostics, `the generated client does not compile (files in ${dir})`).toEqual([]);
  });

  it('a usage that does not match the generated types fails to compile (the check can fail)', async () => {
    const broken = join(dir, 'broken');
    // A field the operation did not select is not on the result type.
    const { files } = await clientProject(broken, `import type { BomWithBuildableQuery } from './generated/operations.ts';
export const cost = (r: BomWithBuildableQuery): string => r.bom.totalRawMaterialCost;
`);
    const diagnostics = typeCheck(broken, files);
    expect(diagnostics.join('\n')).toMatch(/TS2339 Property 'totalRawMaterialCost' does not exist/);
  });

  it('strictScalars refuses a schema scalar the config does not map (as the federation scalar _Any was)', async () => {
    const extra = `${schemaSource}\nscalar _Any\n`;
    await expect(clientProject(join(dir, 'unmapped'), USAGE, extra)).rejects.toThrow(/_Any/);
  });
});

describe('the dashboard operations on a live app', () => {
  let t: TestApp;
  let key: string;
  const shop = uniqueShopId('codegen');
  const document = parse(operationsSource);
  const fragments = operationsSource.slice(0, operationsSource.indexOf('query MaterialsPage'));
  const operation = (name: string) => {
    const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && d.name?.value === name);
    if (!op?.loc) throw new Error(`no operation ${name} in ${OPERATIONS_FILE}`);
    const text = op.loc.source.body.slice(op.loc.start, op.loc.end);
    // Sent alone, an operation carries the fragments only if it spreads them (an unused fragment is invalid).
    return text.includes('...') ? `${fragments}\n${text}` : text;
  };
  const run = async (name: string, variables: Record<string, unknown>) => {
    const { status, body } = await t.graphql(key, operation(name), variables);
    expect(body.errors, name).toBeUndefined();
    expect(status, name).toBe(200);
    return body.data;
  };

  beforeAll(async () => {
    t = await createTestApp();
    await t.load(toDataset(datasetJson(shop)));
    key = await t.createKey(shop, ['read', 'write']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every operation answers without errors, with the variables the usage file type-checks', async () => {
    const materials = await run('MaterialsPage', { first: 25, search: 'wick', originFilter: 'virtual', usageFilter: 'used', vendorFilter: ['WickWorks'], sortBy: 'productName', sortOrder: 'asc' });
    expect(materials.rawMaterialConnection.nodes.map((m: { variantId: string }) => m.variantId)).toEqual(['VMAT-VAR-0001']);
    const bom = await run('BomWithBuildable', { bomId: 'BOM-1001', locationIds: ['101'] });
    expect(bom.bom.buildable.perLocation.map((l: { locationId: string }) => l.locationId)).toEqual(['101']);
    expect(typeof bom.bom.totalCost).toBe('string');
    const created = await run('CreateWorkOrder', {
      input: { name: 'Candles for Friday', sourceType: 'bom', productionLocationId: '101', items: [{ bomId: 'BOM-1001', quantity: '2' }] },
    });
    expect(created.createWorkOrder.userErrors).toEqual([]);
    expect(created.createWorkOrder.createdWorkOrder.workOrder.status).toBe('draft');
    const uses = await run('MaterialUses', { variantId: '44001', status: ['draft', 'in_progress'] });
    expect(uses.rawMaterial.connections.boms).toEqual([{ quantity: '0.4', bom: {
      bomId: 'BOM-1001', name: 'Large candle', workOrders: { totalCount: 1, nodes: [{ shortId: created.createWorkOrder.createdWorkOrder.shortId, status: 'draft' }] },
    } }]);
    const detail = await run('WorkOrderDetail', { workOrderId: created.createWorkOrder.createdWorkOrder.workOrderId });
    expect(detail.workOrder.items).toHaveLength(1);
    expect(detail.workOrder.qcReviews).toEqual([]);
    const move = detail.workOrder.availableTransitions[0];
    expect(move).toBeDefined();
    const moved = await run('MoveWorkOrder', { workOrderId: detail.workOrder.workOrderId, expectedUpdatedAt: detail.workOrder.updatedAt, to: move.to });
    expect(moved.transitionWorkOrder).toMatchObject({ workOrderTransition: { previousStatus: 'draft', status: move.to }, userErrors: [] });
  });
});
