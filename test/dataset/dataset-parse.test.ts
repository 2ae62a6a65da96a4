import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateSource } from '../../src/dataset/dataset-file.ts';
import { BufferByteSource } from '../../src/dataset/json-scan.ts';
import { parseDatasetText, validateDataset } from '../../src/dataset/parse.ts';
import { serializeDataset } from '../../src/dataset/serialize.ts';
import type { Dataset, DatasetError } from '../../src/dataset/types.ts';

// Every validation rule of the dataset format (docs/datasets.md), each checked for its exact JSONPath and message against a
// small valid dataset with one change.

const VMAT = 'VMAT-VAR-6f1c';
const AT = '2026-11-01T09:00:00.000Z';
const LATER = '2026-11-02T10:00:00.000Z';

const variant = (variantId: string, productName: string, levels: unknown[]) => ({
  variantId, productId: `8${variantId.slice(2)}`, inventoryItemId: `46${variantId.slice(2)}`, productName, variantName: null, sku: null,
  vendor: null, price: 10, cost: 5, imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null, levels,
});

/** A valid dataset touching every section (close to the example of docs/datasets.md). */
function base(): any {
  return {
    formatVersion: 1,
    shop: { id: 'acme', name: 'Acme Candles', settings: { allowNegativeInventory: false, materialRequirementsMetafield: false } },
    platform: {
      locations: [{ id: '101', name: 'Main Workshop' }, { id: '102', name: 'Store' }],
      variants: [
        variant('44001', 'Soy wax', [{ locationId: '101', available: 40 }, { locationId: '102', available: 2 }]),
        variant('44003', 'Cotton wick', []),
        variant('44004', 'Amber jar', [{ locationId: '101', available: 10 }]),
        variant('44100', 'Large candle', [{ locationId: '101', available: 3 }]),
      ],
      orders: [{ orderId: '5001', name: '#1001', lineItems: [{ variantId: '44100', productId: '8100', sku: 'CANDLE-L', title: 'Large candle', quantity: 2 }] }],
    },
    materials: [
      { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false, specifications: 'Food-grade' },
      { variantId: '44003', unit: 'pcs' },
      { variantId: '44004', unit: 'pcs', cachedQuantity: 7 },
      { variantId: VMAT, productId: 'VMAT-PROD-6f1c', inventoryItemId: 'VMAT-INV-6f1c', productName: 'Cotton wick', variantName: '15 cm',
        sku: 'WICK-15', vendor: 'WickWorks', unit: 'pcs', unitCost: 0.05, unitPrice: 0, levels: [{ locationId: '101', available: 500.5 }] },
    ],
    costFactors: [{ costFactorId: 'CF-1', name: 'Labour', kind: 'labor', unit: 'hour', unitCost: 20 }],
    assemblyBills: [
      { assemblyId: 'ASM-1', name: 'Wick assembly', rawMaterialReferences: [{ nodeId: VMAT, quantity: 1 }],
        subAssemblyReferences: [{ nodeId: 'ASM-2', quantity: 1 }], costFactorReferences: [{ costFactorId: 'CF-1', quantity: 0.05 }] },
      { assemblyId: 'ASM-2', name: 'Wick tab', rawMaterialReferences: [{ nodeId: '44003', quantity: 1 }] },
    ],
    boms: [{
      bomId: 'BOM-1001', name: 'Large candle', status: 'active', variantId: '44100',
      rawMaterialReferences: [{ nodeId: '44001', quantity: 0.4, wastePercentage: 5 }, { nodeId: '44004', quantity: 1 }],
      subAssemblyReferences: [{ nodeId: 'ASM-1', quantity: 1 }], costFactorReferences: [{ costFactorId: 'CF-1', quantity: 0.25 }],
    }],
    locationRules: [{ ownerType: 'bom', ownerId: 'BOM-1001', locationId: '102', overrides: [
      { action: 'replace', nodeId: '44001', replacementNodeId: VMAT, quantity: 0.5 },
      { action: 'remove', nodeId: 'ASM-1' },
      { action: 'add', nodeId: '44003', quantity: 1 },
      { action: 'adjust', nodeId: '44004', quantity: 2, wastePercentage: 10 },
    ] }],
    preassembled: [{ itemId: '44100', locationId: '101', quantity: 5 }, { itemId: 'ASM-1', locationId: '101', quantity: 3 }],
    residuals: [{ itemId: '44001', locationId: '101', kind: 'buildRun', quantity: 0.2 }],
    reservations: [
      { kind: 'order', itemId: '44001', locationId: '101', orderId: '5001', quantity: 3, fulfilledQuantity: 1 },
      { kind: 'safetyStock', itemId: '44001', locationId: '101', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 4, active: true },
    ],
    assignees: [{ assigneeId: 'asg_ana', displayName: 'Ana', active: true }],
    flows: [{ flowId: 'flow_weekly', name: 'Weekly candle batch' }],
    tasks: [{ taskId: 'todo_42', title: 'Restock wax' }],
    workOrders: [{
      workOrderId: 'wo_2b1e', name: 'Candles for the fair', description: null, notes: null, status: 'in_progress', priority: 'normal',
      dueDate: '2026-12-01', assigneeId: 'asg_ana', productionLocationId: '101', defaultConsumptionLocationId: '101', sourceType: 'bom',
      sourceFlowId: 'flow_weekly', sourceTodoId: 'todo_42', sourceOrderIds: ['5001'], tags: ['fair'], plannedLaborCost: 100, actualLaborCost: null,
      createdAt: AT, updatedAt: LATER,
      items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 10, completedQuantity: 0 }],
      manualMaterials: [{ variantId: '44003', quantity: 2, locationId: null, note: 'spare' }],
      buildRuns: [{ buildRunId: 'run-a', status: 'started', runType: 'production', startedAt: LATER, completedAt: null,
        items: [{ itemId: 'woi_1', quantity: 4 }], picks: [{ variantId: '44001', locationId: '101', quantity: 1.68 }] }],
      qcReviews: [{ reviewId: 'qc_1', buildRunId: 'run-a', decision: 'rejected', note: null, reviewerName: 'Ana', createdAt: LATER }],
      reworkItems: [{ reworkItemId: 'rw_1', description: 'Re-centre wicks', quantity: 1, status: 'open', buildRunId: 'run-a', createdAt: LATER, resolvedAt: null }],
      documents: [{ documentId: 'doc_1', name: 'Spec.pdf', url: 'https://files.example.com/spec.pdf', createdAt: AT }],
      conversation: [{ messageId: 'msg_1', authorName: 'Ana', body: 'Jars arrive Tuesday.', createdAt: AT }],
      lifecycleEvents: [{ eventId: 'evt_1', fromStatus: null, toStatus: 'draft', createdAt: AT }],
    }],
    billVersions: [{ ownerType: 'bom', ownerId: 'BOM-1001', version: 3, state: 'ready', savedAt: AT, savedBy: 'Ana', trigger: 'manual',
      contentHash: 'sha256:abc', changes: { recipeFields: 1, materials: 2, locationRules: 0, overrides: 1 } }],
  };
}

/** The problems `bomcore load` reports for the value written as a file, streamed in 7-byte chunks. */
function fileErrorsOf(value: unknown): DatasetError[] {
  const result = validateSource(new BufferByteSource(Buffer.from(JSON.stringify(value))), 'test.json', { chunkSize: 7 });
  return result.ok ? [] : result.errors;
}

function errorsAfter(change: (d: any) => void): DatasetError[] {
  const dataset = base();
  change(dataset);
  const result = validateDataset(dataset);
  const errors = result.ok ? [] : result.errors;
  // Every rule holds the same way on a file streamed from disk: same problems, same order.
  expect(fileErrorsOf(dataset)).toEqual(errors);
  return errors;
}

function validOrThrow(value: unknown): Dataset {
  const result = validateDataset(value);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.dataset;
}

function parsedOrThrow(text: string): Dataset {
  const result = parseDatasetText(text);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.dataset;
}

describe('dataset parsing', () => {
  it('the base dataset is valid (every later failure comes from its one change)', () => {
    expect(validateDataset(base())).toMatchObject({ ok: true });
  });

  it('malformed JSON gives one error at $ with the parser message', () => {
    const result = parseDatasetText('{"formatVersion": 1,');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.path).toBe('$');
    expect(result.errors[0]?.message).toMatch(/^malformed JSON: .+/);
  });

  it('the reviver keeps the exact source digits: 0.1 stays "0.1" and 14+6 digits survive where a float would not', () => {
    const text = JSON.stringify(base())
      .replace('"quantity":0.4', '"quantity":0.1')
      .replace('"unitCost":20', '"unitCost":12345678901234.123456');
    const dataset = parsedOrThrow(text);
    expect(dataset.boms[0]?.rawMaterialReferences[0]?.quantity).toBe('0.1');
    expect(dataset.costFactors[0]?.unitCost).toBe('12345678901234.123456');
  });

  it('numbers are stored canonically: 2.500 → "2.5", 1.5e2 → "150", -0 → "0"', () => {
    const text = JSON.stringify(base())
      .replace('"quantity":0.4', '"quantity":2.500')
      .replace('"unitCost":20', '"unitCost":1.5e2')
      .replace('"cachedQuantity":7', '"cachedQuantity":-0');
    const dataset = parsedOrThrow(text);
    expect(dataset.boms[0]?.rawMaterialReferences[0]?.quantity).toBe('2.5');
    expect(dataset.costFactors[0]?.unitCost).toBe('150');
    expect(dataset.materials[2]).toMatchObject({ cachedQuantity: '0' });
  });

  it.each([
    ['1e-7 (an exponent form with 7 fractional digits) is refused', '1e-7', 'has more than 6 fractional digits: 1e-7'],
    ['7 fractional digits are refused', '0.1234567', 'has more than 6 fractional digits: 0.1234567'],
    ['more than 14 integer digits (the numeric(20, 6) columns) are refused', '1e14', 'is out of range (more than 14 integer digits): 1e14'],
  ])('%s', (_rule, source, message) => {
    const result = parseDatasetText(JSON.stringify(base()).replace('"quantity":0.4', `"quantity":${source}`));
    expect(result).toEqual({ ok: false, errors: [{ path: '$.boms[0].rawMaterialReferences[0].quantity', message }] });
  });

  it('validateDataset reads JS numbers through their shortest text: 0.1 → "0.1", 0.1 + 0.2 is refused', () => {
    const dataset = base();
    dataset.boms[0].rawMaterialReferences[0].quantity = 0.1;
    expect(validOrThrow(dataset).boms[0]?.rawMaterialReferences[0]?.quantity).toBe('0.1');
    expect(errorsAfter((d) => { d.boms[0].rawMaterialReferences[0].quantity = 0.1 + 0.2; })).toEqual([
      { path: '$.boms[0].rawMaterialReferences[0].quantity', message: 'has more than 6 fractional digits: 0.30000000000000004' },
    ]);
  });

  it('optional fields are normalised: nulls, [] for arrays, documented boolean and decimal defaults', () => {
    const dataset = validOrThrow(base());
    expect(dataset.materials[1]).toEqual({ origin: 'platform', variantId: '44003', unit: 'pcs', isNonEssentialMaterial: false, specifications: null, cachedQuantity: '0' });
    expect(dataset.assemblyBills[1]).toMatchObject({ onlyConsumePreassembled: false, subAssemblyReferences: [], costFactorReferences: [] });
    expect(dataset.assemblyBills[0]?.rawMaterialReferences[0]?.wastePercentage).toBe('0');
    expect(dataset.locationRules[0]?.overrides[0]).toEqual({ action: 'replace', nodeId: '44001', replacementNodeId: VMAT, quantity: '0.5', wastePercentage: null });
    expect(dataset.locationRules[0]?.overrides[2]).toEqual({ action: 'add', nodeId: '44003', quantity: '1', wastePercentage: '0' });
    expect(dataset.workOrders[0]?.lifecycleEvents[0]).toEqual({ eventId: 'evt_1', fromStatus: null, toStatus: 'draft', note: null, actorUserId: null, actorDisplayName: null, createdAt: AT });
    const bare = validOrThrow({ formatVersion: 1, shop: { id: 'x', name: 'X' } });
    expect(bare.shop.settings).toEqual({ allowNegativeInventory: false, materialRequirementsMetafield: false });
    expect(bare.platform).toEqual({ locations: [], variants: [], orders: [] });
    expect(bare.workOrders).toEqual([]);
  });

  it('reservation defaults: fulfilledQuantity "0", safety stock active true; assignee active true', () => {
    const dataset = base();
    delete dataset.reservations[0].fulfilledQuantity;
    delete dataset.reservations[1].active;
    delete dataset.assignees[0].active;
    const parsed = validOrThrow(dataset);
    expect(parsed.reservations[0]).toMatchObject({ fulfilledQuantity: '0' });
    expect(parsed.reservations[1]).toMatchObject({ active: true });
    expect(parsed.assignees[0]?.active).toBe(true);
  });

  it('cachedQuantity defaults to the sum of the platform levels of the variant (40 + 2)', () => {
    expect(validOrThrow(base()).materials[0]).toMatchObject({ cachedQuantity: '42' });
    expect(validOrThrow(base()).materials[2]).toMatchObject({ cachedQuantity: '7' });
  });

  it('all problems are collected, not only the first, each at its own path', () => {
    const errors = errorsAfter((d) => {
      d.shop.name = 5;
      d.assemblyBills[1].rawMaterialReferences[0].nodeId = '44999';
      d.boms[0].qty = 1;
      d.workOrders[0].assigneeId = 'asg_nobody';
      d.residuals[0].quantity = 1;
    });
    expect(errors).toEqual([
      { path: '$.shop.name', message: 'must be a string, got a number' },
      { path: '$.boms[0].qty', message: 'unknown field "qty"' },
      { path: '$.residuals[0].quantity', message: 'must be at least 0 and less than 1, got 1' },
      { path: '$.assemblyBills[1].rawMaterialReferences[0].nodeId', message: 'unknown material "44999"' },
      { path: '$.workOrders[0].assigneeId', message: 'unknown assignee "asg_nobody"' },
    ]);
  });

  it('the demo dataset validates and serializes back to its own text', () => {
    const text = readFileSync(new URL('../../data/demo-dataset.json', import.meta.url), 'utf8');
    const dataset = parsedOrThrow(text);
    expect(serializeDataset(dataset)).toBe(text);
  });

  it('the demo dataset covers what the demo promises', () => {
    const demo = parsedOrThrow(readFileSync(new URL('../../data/demo-dataset.json', import.meta.url), 'utf8'));
    expect(demo.shop.id).toBe('demo');
    expect(demo.platform.locations.length).toBeGreaterThanOrEqual(3);
    expect(demo.materials.length).toBeGreaterThanOrEqual(40);
    expect(new Set(demo.materials.map((m) => m.origin))).toEqual(new Set(['platform', 'virtual']));
    expect(demo.boms.length).toBeGreaterThanOrEqual(10);
    expect(demo.boms.some((b) => b.status === 'inactive')).toBe(true);
    expect(demo.boms.some((b) => b.variantId === null)).toBe(true);
    expect(demo.boms.some((b) => demo.platform.variants.find((v) => v.variantId === b.variantId)?.levels.length === 0)).toBe(true);
    expect(demo.assemblyBills.some((b) => b.onlyConsumePreassembled)).toBe(true);
    expect(new Set(demo.locationRules.flatMap((r) => r.overrides.map((o) => o.action)))).toEqual(new Set(['replace', 'remove', 'add', 'adjust']));
    expect(new Set(demo.workOrders.map((w) => w.status)).size).toBe(8);
    expect(new Set(demo.reservations.map((r) => r.kind)).size).toBe(2);
    expect(new Set(demo.residuals.map((r) => r.kind)).size).toBe(2);
    expect(demo.assignees.filter((a) => !a.active).length).toBeGreaterThanOrEqual(1);
    expect(demo.billVersions.some((v) => v.state === 'pending')).toBe(true);
    expect(demo.platform.orders.length).toBeGreaterThanOrEqual(6);
  });
});

// [rule, change, path, message]: the change must produce exactly this one error.
type Case = [string, (d: any) => void, string, string];

const shapeCases: Case[] = [
  ['formatVersion must be 1', (d) => { d.formatVersion = 2; }, '$.formatVersion', 'unsupported formatVersion 2 (expected 1)'],
  ['a required field must be present', (d) => { delete d.shop.name; }, '$.shop.name', 'required field "name" is missing'],
  ['a required field must not be null', (d) => { d.boms[0].name = null; }, '$.boms[0].name', 'must not be null'],
  ['a string field refuses other types', (d) => { d.costFactors[0].name = 7; }, '$.costFactors[0].name', 'must be a string, got a number'],
  ['a number field refuses strings (quantities are JSON numbers)', (d) => { d.boms[0].rawMaterialReferences[0].quantity = '0.4'; },
    '$.boms[0].rawMaterialReferences[0].quantity', 'must be a number, got a string'],
  ['a boolean field refuses other types', (d) => { d.assignees[0].active = 'yes'; }, '$.assignees[0].active', 'must be true or false, got a string'],
  ['an array field refuses objects', (d) => { d.workOrders[0].tags = {}; }, '$.workOrders[0].tags', 'must be an array, got an object'],
  ['an object element refuses scalars', (d) => { d.flows.push('flow_x'); }, '$.flows[1]', 'must be an object, got a string'],
  ['unknown fields are refused', (d) => { d.boms[0].rawMaterialReferences[0].qty = 1; }, '$.boms[0].rawMaterialReferences[0].qty', 'unknown field "qty"'],
  ['unknown field names that are not identifiers are quoted in the path', (d) => { d.shop['odd key'] = 1; }, '$.shop["odd key"]', 'unknown field "odd key"'],
  ['BOM status is active or inactive', (d) => { d.boms[0].status = 'retired'; }, '$.boms[0].status', 'must be one of "active", "inactive", got "retired"'],
  ['cost factor kind is one of the five kinds', (d) => { d.costFactors[0].kind = 'energy'; }, '$.costFactors[0].kind',
    'must be one of "labor", "overhead", "packaging", "machine", "other", got "energy"'],
  ['location rule action is one of the four actions', (d) => { d.locationRules[0].overrides[1].action = 'drop'; }, '$.locationRules[0].overrides[1].action',
    'must be one of "replace", "remove", "add", "adjust", got "drop"'],
  ['reservation kind is order or safetyStock', (d) => { d.reservations[0].kind = 'hold'; }, '$.reservations[0].kind', 'must be one of "order", "safetyStock", got "hold"'],
  ['residual kind is buildRun or safetyStock', (d) => { d.residuals[0].kind = 'order'; }, '$.residuals[0].kind', 'must be one of "buildRun", "safetyStock", got "order"'],
  ['work-order status is one of the eight states', (d) => { d.workOrders[0].status = 'done'; }, '$.workOrders[0].status',
    'must be one of "draft", "ready", "in_progress", "paused", "quality_control", "qc_approved", "completed", "cancelled", got "done"'],
  ['work-order priority is low, normal, high or urgent', (d) => { d.workOrders[0].priority = 'p1'; }, '$.workOrders[0].priority',
    'must be one of "low", "normal", "high", "urgent", got "p1"'],
  ['work-order sourceType is flow, bom, sa, empty or orders', (d) => { d.workOrders[0].sourceType = 'manual'; }, '$.workOrders[0].sourceType',
    'must be one of "flow", "bom", "sa", "empty", "orders", got "manual"'],
  ['build-run status is started, completed or reversed', (d) => { d.workOrders[0].buildRuns[0].status = 'failed'; }, '$.workOrders[0].buildRuns[0].status',
    'must be one of "started", "completed", "reversed", got "failed"'],
  ['build-run runType is production or rework', (d) => { d.workOrders[0].buildRuns[0].runType = 'repair'; }, '$.workOrders[0].buildRuns[0].runType',
    'must be one of "production", "rework", got "repair"'],
  ['QC decision is approved or rejected', (d) => { d.workOrders[0].qcReviews[0].decision = 'maybe'; }, '$.workOrders[0].qcReviews[0].decision',
    'must be one of "approved", "rejected", got "maybe"'],
  ['bill-version state is ready or pending', (d) => { d.billVersions[0].state = 'draft'; }, '$.billVersions[0].state', 'must be one of "ready", "pending", got "draft"'],
  ['bill owner type is bom or sub_assembly', (d) => { d.billVersions[0].ownerType = 'assembly'; }, '$.billVersions[0].ownerType', 'must be one of "bom", "sub_assembly", got "assembly"'],
  ['ids are non-empty strings', (d) => { d.assignees.push({ assigneeId: '', displayName: 'Nobody' }); }, '$.assignees[1].assigneeId', 'must not be empty'],
  ['location ids are bare numeric ids', (d) => { d.preassembled[0].locationId = 'gid://shopify/Location/101'; }, '$.preassembled[0].locationId',
    'must be a bare numeric id, got "gid://shopify/Location/101"'],
  ['platform variant ids are numeric', (d) => { d.platform.orders[0].lineItems[0].variantId = 'abc'; }, '$.platform.orders[0].lineItems[0].variantId',
    'must be a bare numeric id, got "abc"'],
  ['BOM ids have the form BOM-<digits>', (d) => { d.billVersions = []; d.locationRules = []; d.reservations.pop(); d.workOrders[0].items = [];
    d.workOrders[0].buildRuns[0].items = []; d.boms[0].bomId = 'BOM-A1'; }, '$.boms[0].bomId', 'must have the form BOM-<digits>, got "BOM-A1"'],
  ['cost factor ids have the form CF-<id>', (d) => { d.costFactors.push({ ...d.costFactors[0], costFactorId: 'CF-' }); }, '$.costFactors[1].costFactorId',
    'must have the form CF-<id>, got "CF-"'],
  ['assembly ids have the form ASM-<id>', (d) => { d.assemblyBills.push({ assemblyId: 'A-1', name: 'Odd' }); }, '$.assemblyBills[2].assemblyId',
    'must have the form ASM-<id>, got "A-1"'],
  ['work-order ids have the form wo_<id>', (d) => { d.workOrders[0].workOrderId = 'WO-1'; }, '$.workOrders[0].workOrderId', 'must have the form wo_<id>, got "WO-1"'],
  ['timestamps are ISO 8601 UTC with milliseconds', (d) => { d.workOrders[0].createdAt = '2026-11-01T09:00:00Z'; }, '$.workOrders[0].createdAt',
    'must be an ISO 8601 UTC timestamp with milliseconds (2026-11-01T09:00:00.000Z), got "2026-11-01T09:00:00Z"'],
  ['timestamps are real instants', (d) => { d.billVersions[0].savedAt = '2026-02-30T09:00:00.000Z'; }, '$.billVersions[0].savedAt',
    'is not a real date and time: 2026-02-30T09:00:00.000Z'],
  ['dueDate is YYYY-MM-DD', (d) => { d.workOrders[0].dueDate = '01/12/2026'; }, '$.workOrders[0].dueDate', 'must be a date YYYY-MM-DD, got "01/12/2026"'],
  ['dueDate is a real date', (d) => { d.workOrders[0].dueDate = '2026-13-01'; }, '$.workOrders[0].dueDate', 'is not a real date: 2026-13-01'],
  ['bill versions are whole numbers ≥ 1', (d) => { d.billVersions[0].version = 0; }, '$.billVersions[0].version', 'must be at least 1, got 0'],
  ['bill-version change counts are whole numbers', (d) => { d.billVersions[0].changes.materials = 1.5; }, '$.billVersions[0].changes.materials', 'must be a whole number, got 1.5'],
  ['order line quantities are whole numbers ≥ 1', (d) => { d.platform.orders[0].lineItems[0].quantity = 0; }, '$.platform.orders[0].lineItems[0].quantity',
    'must be a whole number greater than 0, got 0'],
];

const materialCases: Case[] = [
  ['a material variantId is numeric or VMAT-VAR-…', (d) => { d.materials.push({ variantId: 'MAT-1', unit: 'pcs' }); }, '$.materials[4].variantId',
    'must be a numeric platform variant id or a VMAT-VAR-… virtual id, got "MAT-1"'],
  ['a platform-linked material must exist in platform.variants', (d) => { d.materials.push({ variantId: '44999', unit: 'pcs' }); }, '$.materials[4].variantId',
    'unknown platform variant "44999"'],
  ['a platform-linked material may not set mirrored fields like productName', (d) => { d.materials[0].productName = 'Wax'; }, '$.materials[0].productName',
    '"productName" is mirrored from the platform variant; only virtual (VMAT-VAR-) materials may set it'],
  ['a platform-linked material may not carry its own levels', (d) => { d.materials[0].levels = []; }, '$.materials[0].levels',
    '"levels" is mirrored from the platform variant; only virtual (VMAT-VAR-) materials may set it'],
  ['a virtual material productId starts with VMAT-PROD-', (d) => { d.materials[3].productId = '8001'; }, '$.materials[3].productId', 'must start with VMAT-PROD-, got "8001"'],
  ['a virtual material inventoryItemId starts with VMAT-INV-', (d) => { d.materials[3].inventoryItemId = 'INV-1'; }, '$.materials[3].inventoryItemId',
    'must start with VMAT-INV-, got "INV-1"'],
  ['a virtual material needs its own productName', (d) => { delete d.materials[3].productName; }, '$.materials[3].productName', 'required field "productName" is missing'],
  ['a virtual material has no cachedQuantity (its quantity is the sum of its levels)', (d) => { d.materials[3].cachedQuantity = 5; }, '$.materials[3].cachedQuantity',
    'only platform-linked materials carry cachedQuantity; a virtual material\'s quantity is the sum of its levels'],
  ['platform levels are whole numbers', (d) => { d.platform.variants[0].levels[0].available = 2.5; }, '$.platform.variants[0].levels[0].available', 'must be a whole number, got 2.5'],
  ['virtual levels are not negative unless the shop allows negative inventory', (d) => { d.materials[3].levels[0].available = -1; },
    '$.materials[3].levels[0].available', 'must be at least 0 unless shop.settings.allowNegativeInventory is true, got -1'],
  ['a level names a known location', (d) => { d.platform.variants[0].levels[1].locationId = '999'; }, '$.platform.variants[0].levels[1].locationId', 'unknown location "999"'],
  ['a variant has one level per location', (d) => { d.platform.variants[0].levels[1].locationId = '101'; }, '$.platform.variants[0].levels[1].locationId',
    'duplicate level for location "101" (first at $.platform.variants[0].levels[0].locationId)'],
];

const duplicateCases: Case[] = [
  ['location ids are unique', (d) => { d.platform.locations.push({ id: '101', name: 'Again' }); }, '$.platform.locations[2].id', 'duplicate location "101" (first at $.platform.locations[0].id)'],
  ['platform variant ids are unique', (d) => { d.platform.variants.push(variant('44003', 'Again', [])); }, '$.platform.variants[4].variantId',
    'duplicate platform variant "44003" (first at $.platform.variants[1].variantId)'],
  ['order ids are unique', (d) => { d.platform.orders.push({ orderId: '5001', name: '#1002' }); }, '$.platform.orders[1].orderId', 'duplicate order "5001" (first at $.platform.orders[0].orderId)'],
  ['material ids are unique', (d) => { d.materials.push({ variantId: '44003', unit: 'pcs' }); }, '$.materials[4].variantId', 'duplicate material "44003" (first at $.materials[1].variantId)'],
  ['cost factor ids are unique', (d) => { d.costFactors.push({ ...d.costFactors[0] }); }, '$.costFactors[1].costFactorId', 'duplicate cost factor "CF-1" (first at $.costFactors[0].costFactorId)'],
  ['assembly ids are unique', (d) => { d.assemblyBills.push({ assemblyId: 'ASM-2', name: 'Again' }); }, '$.assemblyBills[2].assemblyId',
    'duplicate assembly bill "ASM-2" (first at $.assemblyBills[1].assemblyId)'],
  ['BOM ids are unique', (d) => { d.boms.push({ bomId: 'BOM-1001', name: 'Again', status: 'active' }); }, '$.boms[1].bomId', 'duplicate BOM "BOM-1001" (first at $.boms[0].bomId)'],
  ['assignee ids are unique', (d) => { d.assignees.push({ assigneeId: 'asg_ana', displayName: 'Ana 2' }); }, '$.assignees[1].assigneeId',
    'duplicate assignee "asg_ana" (first at $.assignees[0].assigneeId)'],
  ['flow ids are unique', (d) => { d.flows.push({ flowId: 'flow_weekly', name: 'Again' }); }, '$.flows[1].flowId', 'duplicate flow "flow_weekly" (first at $.flows[0].flowId)'],
  ['task ids are unique', (d) => { d.tasks.push({ taskId: 'todo_42', title: 'Again' }); }, '$.tasks[1].taskId', 'duplicate task "todo_42" (first at $.tasks[0].taskId)'],
  ['work-order ids are unique', (d) => { d.workOrders.push({ ...d.workOrders[0], qcReviews: [], reworkItems: [], documents: [], conversation: [], lifecycleEvents: [] }); },
    '$.workOrders[1].workOrderId', 'duplicate work order "wo_2b1e" (first at $.workOrders[0].workOrderId)'],
  ['work-order item ids are unique within the work order', (d) => { d.workOrders[0].items.push({ itemId: 'woi_1', ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: 1 }); },
    '$.workOrders[0].items[1].itemId', 'duplicate work-order item "woi_1" (first at $.workOrders[0].items[0].itemId)'],
  ['build-run ids are unique within the work order', (d) => { d.workOrders[0].buildRuns.push({ ...d.workOrders[0].buildRuns[0] }); },
    '$.workOrders[0].buildRuns[1].buildRunId', 'duplicate build run "run-a" (first at $.workOrders[0].buildRuns[0].buildRunId)'],
  ['lifecycle event ids are unique across the shop', (d) => {
    d.workOrders.push({ ...d.workOrders[0], workOrderId: 'wo_other', qcReviews: [], reworkItems: [], documents: [], conversation: [] });
  }, '$.workOrders[1].lifecycleEvents[0].eventId', 'duplicate lifecycle event "evt_1" (first at $.workOrders[0].lifecycleEvents[0].eventId)'],
  ['bill versions are unique per (ownerType, ownerId, version)', (d) => { d.billVersions.push({ ...d.billVersions[0], state: 'pending' }); },
    '$.billVersions[1].version', 'duplicate version 3 of bom "BOM-1001" (first at $.billVersions[0].version)'],
  ['a platform variant is the finished good of one BOM only', (d) => { d.boms.push({ bomId: 'BOM-1002', name: 'Twin', status: 'active', variantId: '44100' }); },
    '$.boms[1].variantId', 'variant "44100" is already the finished good of BOM-1001'],
  ['a recipe names a node once per list', (d) => { d.boms[0].rawMaterialReferences.push({ nodeId: '44001', quantity: 1 }); }, '$.boms[0].rawMaterialReferences[2].nodeId',
    'duplicate line for "44001" (first at $.boms[0].rawMaterialReferences[0].nodeId)'],
  ['one shelf per item and location', (d) => { d.preassembled.push({ itemId: '44100', locationId: '101', quantity: 1 }); }, '$.preassembled[2]',
    'duplicate shelf for "44100" at location "101" (first at $.preassembled[0])'],
  ['one residual per item, location and kind', (d) => { d.residuals.push({ ...d.residuals[0], quantity: 0.5 }); }, '$.residuals[1]',
    'duplicate buildRun residual for "44001" at location "101" (first at $.residuals[0])'],
  ['one order reservation per item, location and order', (d) => { d.reservations.push({ ...d.reservations[0] }); }, '$.reservations[2]',
    'duplicate order reservation of "44001" at location "101" for order "5001" (first at $.reservations[0])'],
  ['one location rule per bill and location', (d) => { d.locationRules.push({ ownerType: 'bom', ownerId: 'BOM-1001', locationId: '102' }); }, '$.locationRules[1]',
    'duplicate rule for bom "BOM-1001" at location "102" (first at $.locationRules[0])'],
];

const referenceCases: Case[] = [
  ['QC review items are items its build run built', (d) => { d.workOrders[0].qcReviews[0].items = [{ itemId: 'woi_9', approvedQuantity: 0, failedQuantity: 1 }]; },
    '$.workOrders[0].qcReviews[0].items[0].itemId', 'item "woi_9" is not one build run "run-a" built'],
  ['approved + failed over the QC reviews of a run is at most what it built (a review without items judged the whole run)', (d) => {
    d.workOrders[0].qcReviews.push({ reviewId: 'qc_2', buildRunId: 'run-a', decision: 'approved', items: [{ itemId: 'woi_1', approvedQuantity: 0.5, failedQuantity: 0 }], createdAt: LATER });
  }, '$.workOrders[0].qcReviews[1].items[0]', 'approved + failed of item "woi_1" over the reviews of build run "run-a" is 4.5, more than the 4 it built'],
  ['a QC review item judges at least one unit', (d) => { d.workOrders[0].qcReviews[0].items = [{ itemId: 'woi_1', approvedQuantity: 0, failedQuantity: 0 }]; },
    '$.workOrders[0].qcReviews[0].items[0]', 'approvedQuantity + failedQuantity must be greater than 0'],
  ['a QC decision agrees with its items (rejected exactly when units failed)', (d) => { d.workOrders[0].qcReviews[0].items = [{ itemId: 'woi_1', approvedQuantity: 4, failedQuantity: 0 }]; },
    '$.workOrders[0].qcReviews[0].decision', 'must be approved: no item failed units'],
  ['a recipe raw line names a known material', (d) => { d.boms[0].rawMaterialReferences.push({ nodeId: '44999', quantity: 1 }); }, '$.boms[0].rawMaterialReferences[2].nodeId',
    'unknown material "44999"'],
  ['a recipe sub-assembly line names a known assembly bill', (d) => { d.assemblyBills[0].subAssemblyReferences[0].nodeId = 'ASM-9'; },
    '$.assemblyBills[0].subAssemblyReferences[0].nodeId', 'unknown assembly bill "ASM-9"'],
  ['a recipe cost line names a known cost factor', (d) => { d.boms[0].costFactorReferences[0].costFactorId = 'CF-9'; },
    '$.boms[0].costFactorReferences[0].costFactorId', 'unknown cost factor "CF-9"'],
  ['a BOM finished good is a platform variant', (d) => { d.boms[0].variantId = '44999'; d.preassembled.shift(); }, '$.boms[0].variantId', 'unknown platform variant "44999"'],
  ['a location rule names a known BOM', (d) => { d.locationRules[0].ownerId = 'BOM-9'; }, '$.locationRules[0].ownerId', 'unknown BOM "BOM-9"'],
  ['a location rule names a known assembly bill', (d) => { d.locationRules[0].ownerType = 'sub_assembly'; }, '$.locationRules[0].ownerId', 'unknown assembly bill "BOM-1001"'],
  ['a location rule names a known location', (d) => { d.locationRules[0].locationId = '999'; }, '$.locationRules[0].locationId', 'unknown location "999"'],
  ['replace, remove and adjust target a line of the bill', (d) => { d.locationRules[0].overrides[1].nodeId = '44003'; d.locationRules[0].overrides.splice(2, 1); },
    '$.locationRules[0].overrides[1].nodeId', '"44003" is not a line of BOM-1001'],
  ['a replacement is of the same kind as the replaced line', (d) => { d.locationRules[0].overrides[0].replacementNodeId = 'ASM-2'; },
    '$.locationRules[0].overrides[0].replacementNodeId', 'unknown material "ASM-2" (a replacement must be of the same kind as the replaced line)'],
  ['add names a known material or assembly bill', (d) => { d.locationRules[0].overrides[2].nodeId = '44999'; }, '$.locationRules[0].overrides[2].nodeId',
    'unknown material or assembly bill "44999"'],
  ['add names something that is not already a line', (d) => { d.locationRules[0].overrides[2].nodeId = '44004'; d.locationRules[0].overrides.pop(); },
    '$.locationRules[0].overrides[2].nodeId', '"44004" is already a line of BOM-1001; use "adjust" to change it'],
  ['adjust changes quantity or waste', (d) => { d.locationRules[0].overrides[3] = { action: 'adjust', nodeId: '44004' }; }, '$.locationRules[0].overrides[3]',
    'an "adjust" override must set quantity or wastePercentage'],
  ['waste is not set on assembly-bill lines', (d) => { d.locationRules[0].overrides[1] = { action: 'adjust', nodeId: 'ASM-1', wastePercentage: 5 }; },
    '$.locationRules[0].overrides[1].wastePercentage', 'wastePercentage applies to raw-material lines only, not to assembly bills'],
  ['a node has one override per rule', (d) => { d.locationRules[0].overrides[3].nodeId = '44001'; }, '$.locationRules[0].overrides[3].nodeId',
    '"44001" already has an override in this rule (at $.locationRules[0].overrides[0])'],
  ['a remove override has no quantity', (d) => { d.locationRules[0].overrides[1].quantity = 1; }, '$.locationRules[0].overrides[1].quantity', 'unknown field "quantity"'],
  ['a pre-assembled item is a platform variant or an assembly bill', (d) => { d.preassembled[0].itemId = VMAT; }, '$.preassembled[0].itemId',
    `unknown pre-assembled item "${VMAT}" (expected a platform variant or an assembly bill)`],
  ['a residual item is a material, variant or assembly bill', (d) => { d.residuals[0].itemId = 'BOM-1001'; }, '$.residuals[0].itemId',
    'unknown stock item "BOM-1001" (expected a material, a platform variant or an assembly bill)'],
  ['a reservation names a known location', (d) => { d.reservations[1].locationId = '103'; }, '$.reservations[1].locationId', 'unknown location "103"'],
  ['an order reservation names a known order', (d) => { d.reservations[0].orderId = '5999'; }, '$.reservations[0].orderId', 'unknown order "5999"'],
  ['a safety-stock reservation names a known owner', (d) => { d.reservations[1].ownerId = 'BOM-2'; }, '$.reservations[1].ownerId', 'unknown BOM "BOM-2"'],
  ['a bill version names a known owner', (d) => { d.billVersions[0].ownerType = 'sub_assembly'; d.billVersions[0].ownerId = 'ASM-7'; }, '$.billVersions[0].ownerId', 'unknown assembly bill "ASM-7"'],
];

const workOrderCases: Case[] = [
  ['a work order names a known assignee', (d) => { d.workOrders[0].assigneeId = 'asg_bob'; }, '$.workOrders[0].assigneeId', 'unknown assignee "asg_bob"'],
  ['the production location is known', (d) => { d.workOrders[0].productionLocationId = '999'; }, '$.workOrders[0].productionLocationId', 'unknown location "999"'],
  ['the default consumption location is known', (d) => { d.workOrders[0].defaultConsumptionLocationId = '998'; }, '$.workOrders[0].defaultConsumptionLocationId', 'unknown location "998"'],
  ['the source flow is known', (d) => { d.workOrders[0].sourceFlowId = 'flow_x'; }, '$.workOrders[0].sourceFlowId', 'unknown flow "flow_x"'],
  ['the source task is known', (d) => { d.workOrders[0].sourceTodoId = 'todo_x'; }, '$.workOrders[0].sourceTodoId', 'unknown task "todo_x"'],
  ['source orders are known', (d) => { d.workOrders[0].sourceOrderIds = ['5001', '5002']; }, '$.workOrders[0].sourceOrderIds[1]', 'unknown order "5002"'],
  ['an item owner is a known bill', (d) => { d.workOrders[0].items[0].ownerType = 'sub_assembly'; d.workOrders[0].items[0].ownerId = 'ASM-5'; },
    '$.workOrders[0].items[0].ownerId', 'unknown assembly bill "ASM-5"'],
  ['a manual material is a known material', (d) => { d.workOrders[0].manualMaterials[0].variantId = '44100'; }, '$.workOrders[0].manualMaterials[0].variantId', 'unknown material "44100"'],
  ['a manual material location is known', (d) => { d.workOrders[0].manualMaterials[0].locationId = '555'; }, '$.workOrders[0].manualMaterials[0].locationId', 'unknown location "555"'],
  ['build-run items name items of the same work order', (d) => { d.workOrders[0].buildRuns[0].items[0].itemId = 'woi_9'; }, '$.workOrders[0].buildRuns[0].items[0].itemId',
    'unknown work-order item "woi_9"'],
  ['picks name a known material or assembly bill (a pre-assembled shelf)', (d) => { d.workOrders[0].buildRuns[0].picks[0].variantId = 'ASM-404'; },
    '$.workOrders[0].buildRuns[0].picks[0].variantId', 'unknown material or assembly bill "ASM-404"'],
  ['picks name known locations', (d) => { d.workOrders[0].buildRuns[0].picks[0].locationId = '104'; }, '$.workOrders[0].buildRuns[0].picks[0].locationId', 'unknown location "104"'],
  ['QC reviews name a build run of the same work order', (d) => { d.workOrders[0].qcReviews[0].buildRunId = 'run-z'; }, '$.workOrders[0].qcReviews[0].buildRunId', 'unknown build run "run-z"'],
  ['rework items name a build run of the same work order', (d) => { d.workOrders[0].reworkItems[0].buildRunId = 'run-z'; }, '$.workOrders[0].reworkItems[0].buildRunId', 'unknown build run "run-z"'],
  ['updatedAt is not before createdAt', (d) => { d.workOrders[0].updatedAt = '2026-10-01T00:00:00.000Z'; }, '$.workOrders[0].updatedAt',
    `must not be before createdAt (${AT}), got 2026-10-01T00:00:00.000Z`],
  ['a completed build run has completedAt', (d) => { d.workOrders[0].buildRuns[0].status = 'completed'; }, '$.workOrders[0].buildRuns[0].completedAt', 'a completed build run needs completedAt'],
  ['a started build run has no completedAt', (d) => { d.workOrders[0].buildRuns[0].completedAt = LATER; }, '$.workOrders[0].buildRuns[0].completedAt',
    'a started build run has no completedAt yet'],
  ['a resolved rework item has resolvedAt', (d) => { d.workOrders[0].reworkItems[0].status = 'resolved'; }, '$.workOrders[0].reworkItems[0].resolvedAt', 'a resolved rework item needs resolvedAt'],
];

const quantityCases: Case[] = [
  ['a recipe quantity is greater than 0', (d) => { d.boms[0].rawMaterialReferences[0].quantity = 0; }, '$.boms[0].rawMaterialReferences[0].quantity', 'must be greater than 0, got 0'],
  ['a sub-assembly quantity is greater than 0', (d) => { d.assemblyBills[0].subAssemblyReferences[0].quantity = -1; }, '$.assemblyBills[0].subAssemblyReferences[0].quantity',
    'must be greater than 0, got -1'],
  ['waste is below 1000 %', (d) => { d.boms[0].rawMaterialReferences[0].wastePercentage = 1000; }, '$.boms[0].rawMaterialReferences[0].wastePercentage',
    'must be at least 0 and less than 1000, got 1000'],
  ['waste is not negative', (d) => { d.boms[0].rawMaterialReferences[0].wastePercentage = -0.5; }, '$.boms[0].rawMaterialReferences[0].wastePercentage',
    'must be at least 0 and less than 1000, got -0.5'],
  ['a residual is below 1', (d) => { d.residuals[0].quantity = 1; }, '$.residuals[0].quantity', 'must be at least 0 and less than 1, got 1'],
  ['a pre-assembled quantity is not negative', (d) => { d.preassembled[1].quantity = -3; }, '$.preassembled[1].quantity', 'must be at least 0, got -3'],
  ['a reservation quantity is not negative', (d) => { d.reservations[1].quantity = -4; }, '$.reservations[1].quantity', 'must be at least 0, got -4'],
  ['fulfilledQuantity does not exceed quantity', (d) => { d.reservations[0].fulfilledQuantity = 3.5; }, '$.reservations[0].fulfilledQuantity', 'must not exceed quantity (3), got 3.5'],
];

const cycleCases: Case[] = [
  ['assembly bills do not form a cycle (reported on a bill of the cycle)', (d) => { d.assemblyBills[1].subAssemblyReferences = [{ nodeId: 'ASM-1', quantity: 1 }]; },
    '$.assemblyBills[1].subAssemblyReferences[0].nodeId', 'assembly bills form a cycle: ASM-1 → ASM-2 → ASM-1'],
  ['an assembly bill does not contain itself', (d) => { d.assemblyBills[1].subAssemblyReferences = [{ nodeId: 'ASM-2', quantity: 1 }]; },
    '$.assemblyBills[1].subAssemblyReferences[0].nodeId', 'assembly bills form a cycle: ASM-2 → ASM-2'],
  ['location rules do not close a cycle at their location', (d) => {
    d.locationRules.push({ ownerType: 'sub_assembly', ownerId: 'ASM-2', locationId: '101', overrides: [{ action: 'add', nodeId: 'ASM-1', quantity: 1 }] });
  }, '$.locationRules[1].overrides[0].nodeId', 'at location "101" the location rules make assembly bills form a cycle: ASM-1 → ASM-2 → ASM-1'],
];

describe.each([
  ['field shapes', shapeCases], ['materials', materialCases], ['duplicate ids', duplicateCases], ['references', referenceCases],
  ['work orders', workOrderCases], ['quantities', quantityCases], ['recipe cycles', cycleCases],
])('dataset validation: %s', (_group, cases) => {
  it.each(cases)('%s', (_rule, change, path, message) => {
    expect(errorsAfter(change)).toEqual([{ path, message }]);
  });
});

describe('dataset validation: accepted edge cases', () => {
  it('virtual levels may be fractional and, when the shop allows it, negative', () => {
    const dataset = base();
    dataset.shop.settings.allowNegativeInventory = true;
    dataset.materials[3].levels[0].available = -2.25;
    expect(validOrThrow(dataset).materials[3]).toMatchObject({ levels: [{ locationId: '101', available: '-2.25' }] });
  });

  it('platform levels may be negative (an oversold platform reports them)', () => {
    const dataset = base();
    dataset.platform.variants[0].levels[0].available = -3;
    expect(validOrThrow(dataset).materials[0]).toMatchObject({ cachedQuantity: '-1' });
  });

  it('a rule that removes the line closing a loop elsewhere keeps the recipes a DAG at that location', () => {
    const dataset = base();
    // ASM-2 → ASM-1 would loop, but at 101 ASM-1 also drops ASM-2.
    dataset.locationRules.push(
      { ownerType: 'sub_assembly', ownerId: 'ASM-2', locationId: '101', overrides: [{ action: 'add', nodeId: 'ASM-1', quantity: 1 }] },
      { ownerType: 'sub_assembly', ownerId: 'ASM-1', locationId: '101', overrides: [{ action: 'remove', nodeId: 'ASM-2' }] },
    );
    expect(validateDataset(dataset)).toMatchObject({ ok: true });
  });

  it('a value that is not an object at the root is refused at $', () => {
    expect(validateDataset([])).toEqual({ ok: false, errors: [{ path: '$', message: 'must be an object, got an array' }] });
  });
});
