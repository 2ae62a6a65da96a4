import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import { buildSchema, parse, validate, type OperationDefinitionNode } from 'graphql';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule (issue 12, "Generated clients, tested in CI"): GraphQL Code Generator (typescript +
// typescript-operations) over schema/schema.graphql and a dashboard's operations file
// (test/clients/graphql/operations.graphql) produces types that compile under the project's strict
// TypeScript settings, together with code that uses them as a client would; the operations are valid
// against the schema and answer without errors on a live app. A type error in the generated code or
// in the usage fails the test with the compiler's messages.

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA_FILE = join(ROOT, 'schema', 'schema.graphql');
const OPERATIONS_FILE = join(import.meta.dirname, 'graphql', 'operations.graphql');

/** How a client maps the custom scalars: exact decimals and timestamps arrive as strings (docs/graphql.md). */
const CODEGEN_CONFIG = {
  scalars: { Decimal: 'string', DateTime: 'string', _Any: 'unknown' },
  strictScalars: true,
  // The project compiles with erasableSyntaxOnly and verbatimModuleSyntax: string unions, `import type`.
  enumsAsTypes: true,
  useTypeImports: true,
  avoidOptionals: false,
};

/** Client code a dashboard would write against the generated types; every line must type-check. */
const USAGE = `import type {
  BomWithBuildableQuery, BomWithBuildableQueryVariables, CreateWorkOrderMutation, CreateWorkOrderMutationVariables,
  MaterialsPageQuery, MaterialsPageQueryVariables, MoveWorkOrderMutationVariables, WorkOrderDetailQuery, WorkOrderStatus,
} from './operations.ts';
import type { RawMaterial, WorkOrder } from './schema-types.ts';

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
 * Two generated files, as GraphQL Code Generator 6 lays them out: `schema-types.ts` (plugin typescript:
 * every type of the schema) and `operations.ts` (plugin typescript-operations: the result and variables
 * types of each operation, with the enums and inputs they use; standalone since version 6, so the two
 * plugins do not share one file).
 */
async function generate(schemaSource: string, operationsSource: string): Promise<{ schemaTypes: string; operations: string }> {
  const common = {
    schema: parse(schemaSource),
    documents: [{ location: OPERATIONS_FILE, document: parse(operationsSource) }],
    config: CODEGEN_CONFIG,
    pluginMap: { typescript: typescriptPlugin, 'typescript-operations': operationsPlugin },
  };
  return {
    schemaTypes: await codegen({ ...common, filename: 'schema-types.ts', plugins: [{ typescript: {} }] }),
    operations: await codegen({ ...common, filename: 'operations.ts', plugins: [{ 'typescript-operations': {} }] }),
  };
}

/** Writes the generated files, a usage file and `package.json` (ES modules, as in this project) into `into`. */
function writeClient(into: string, generated: { schemaTypes: string; operations: string }, usage: string): string[] {
  mkdirSync(into, { recursive: true });
  writeFileSync(join(into, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(into, 'schema-types.ts'), generated.schemaTypes);
  writeFileSync(join(into, 'operations.ts'), generated.operations);
  writeFileSync(join(into, 'usage.ts'), usage);
  return ['schema-types.ts', 'operations.ts', 'usage.ts'];
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

  it('generates types (typescript + typescript-operations) that compile strictly with a client that uses them', async () => {
    const generated = await generate(schemaSource, operationsSource);
    for (const name of ['MaterialsPageQuery', 'BomWithBuildableQuery', 'WorkOrderDetailQuery', 'CreateWorkOrderMutationVariables', 'MoveWorkOrderMutation']) {
      expect(generated.operations, name).toContain(`export type ${name} =`);
    }
    for (const name of ['RawMaterial', 'Bom', 'WorkOrder', 'QcReview', 'CreateWorkOrderInput']) {
      expect(generated.schemaTypes, name).toContain(`export type ${name} =`);
    }
    const files = writeClient(dir, generated, USAGE);
    const diagnostics = typeCheck(dir, files);
    expect(diagnostics, `the generated client does not compile (files in ${dir})`).toEqual([]);
  });

  it('a usage that does not match the generated types fails to compile (the check can fail)', async () => {
    const broken = join(dir, 'broken');
    // A field the operation did not select is not on the result type.
    writeClient(broken, await generate(schemaSource, operationsSource), `import type { BomWithBuildableQuery } from './operations.ts';
export const cost = (r: BomWithBuildableQuery): string => r.bom.totalRawMaterialCost;
`);
    const diagnostics = typeCheck(broken, ['schema-types.ts', 'operations.ts', 'usage.ts']);
    expect(diagnostics.join('\n')).toMatch(/TS2339 Property 'totalRawMaterialCost' does not exist/);
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
    const detail = await run('WorkOrderDetail', { workOrderId: created.createWorkOrder.createdWorkOrder.workOrderId });
    expect(detail.workOrder.items).toHaveLength(1);
    expect(detail.workOrder.qcReviews).toEqual([]);
    const move = detail.workOrder.availableTransitions[0];
    expect(move).toBeDefined();
    const moved = await run('MoveWorkOrder', { workOrderId: detail.workOrder.workOrderId, expectedUpdatedAt: detail.workOrder.updatedAt, to: move.to });
    expect(moved.transitionWorkOrder).toMatchObject({ workOrderTransition: { previousStatus: 'draft', status: move.to }, userErrors: [] });
  });
});
