import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import {
  getNamedType, isAbstractType, isObjectType, Kind, parse, validate, type DocumentNode, type GraphQLCompositeType,
  type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import type { EmulatorContext } from './context.ts';
import { executeDocument } from './engine.ts';
import { dateTime } from './gid.ts';
import type { BulkOperationRecord } from './records.ts';

// Bulk operations as Shopify runs them (https://shopify.dev/docs/api/usage/bulk-operations/queries):
// one query at a time per shop, connections up to two levels deep, a JSONL file with one line per
// node and nested connection nodes on lines of their own carrying `__parentId`, status polled with
// `bulkOperation(id:)` until COMPLETED and a URL to download the file.

/** How a node's response keys are written: nested connections become lines of their own. */
interface Plan {
  connections: Map<string, Plan>;
  objects: Map<string, Plan>;
}

const ROOT_SLICE = 250;

export function isConnectionType(type: GraphQLCompositeType): boolean {
  return type.name.endsWith('Connection') && 'getFields' in type && 'pageInfo' in type.getFields();
}

type UserError = { field: string[]; message: string; code: string };

/** Plans a selection set; counts connections and their depth and checks each nested one's parent selects `id`. */
function planOf(schema: GraphQLSchema, doc: DocumentNode, set: SelectionSetNode, type: GraphQLCompositeType, depth: number, stats: { connections: number; maxDepth: number; errors: string[] }): Plan {
  const plan: Plan = { connections: new Map(), objects: new Map() };
  const fragments = new Map(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const visit = (selections: SelectionSetNode, on: GraphQLCompositeType) => {
    for (const sel of selections.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT || sel.kind === Kind.FRAGMENT_SPREAD) {
        const frag = sel.kind === Kind.INLINE_FRAGMENT ? sel : fragments.get(sel.name.value)!;
        const cond = frag.typeCondition ? (schema.getType(frag.typeCondition.name.value) as GraphQLCompositeType) : on;
        visit(frag.selectionSet, cond);
        continue;
      }
      if (!sel.selectionSet || !('getFields' in on)) continue;
      const field = on.getFields()[sel.name.value];
      if (!field) continue;
      const named = getNamedType(field.type) as unknown as GraphQLCompositeType;
      const key = sel.alias?.value ?? sel.name.value;
      if (isConnectionType(named)) {
        stats.connections += 1;
        stats.maxDepth = Math.max(stats.maxDepth, depth + 1);
        if (depth > 0 && !hasId(set)) stats.errors.push(`The parent 'node' field for a nested connection must select the 'id' field. Connection fields without 'id': ${key}.`);
        plan.connections.set(key, connectionNodePlan(sel.selectionSet, named, depth + 1));
      } else if (isObjectType(named) || isAbstractType(named)) {
        const sub = planOf(schema, doc, sel.selectionSet, named, depth, stats);
        plan.objects.set(key, sub);
      }
    }
  };
  const connectionNodePlan = (conn: SelectionSetNode, connType: GraphQLCompositeType, d: number): Plan => {
    const fields = (connType as any).getFields();
    const nodeType = getNamedType(fields.nodes.type) as unknown as GraphQLCompositeType;
    for (const sel of conn.selections) {
      if (sel.kind !== Kind.FIELD || !sel.selectionSet) continue;
      if (sel.name.value === 'nodes') return planOf(schema, doc, sel.selectionSet, nodeType, d, stats);
      if (sel.name.value === 'edges') {
        const node = sel.selectionSet.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'node');
        if (node?.kind === Kind.FIELD && node.selectionSet) return planOf(schema, doc, node.selectionSet, nodeType, d, stats);
      }
    }
    return { connections: new Map(), objects: new Map() };
  };
  visit(set, type);
  return plan;
}

function hasId(set: SelectionSetNode): boolean {
  return set.selections.some((s) => s.kind === Kind.FIELD && s.name.value === 'id' && !s.alias);
}

function itemsOf(connection: any): any[] {
  if (!connection) return [];
  if (Array.isArray(connection.nodes)) return connection.nodes;
  if (Array.isArray(connection.edges)) return connection.edges.map((e: any) => e.node);
  return [];
}

/** A node as its JSONL line(s): nested connections removed from it and written after it with `__parentId`. */
function emit(value: any, plan: Plan, parentId: string | undefined, lines: string[]): void {
  const children: { items: any[]; plan: Plan }[] = [];
  const strip = (obj: any, p: Plan): any => {
    if (obj === null || typeof obj !== 'object') return obj;
    const copy = { ...obj };
    for (const [key, nodePlan] of p.connections) {
      if (key in copy) children.push({ items: itemsOf(copy[key]), plan: nodePlan });
      delete copy[key];
    }
    for (const [key, sub] of p.objects) if (key in copy) copy[key] = Array.isArray(copy[key]) ? copy[key].map((v: any) => strip(v, sub)) : strip(copy[key], sub);
    return copy;
  };
  const line = strip(value, plan);
  if (parentId !== undefined) line.__parentId = parentId;
  lines.push(JSON.stringify(line));
  for (const child of children) for (const item of child.items) emit(item, child.plan, value.id, lines);
}

export function bulkOperationRunQuery(_: unknown, args: { query: string; groupObjects: boolean }, ctx: EmulatorContext) {
  const fail = (message: string): { bulkOperation: null; userErrors: UserError[] } => ({ bulkOperation: null, userErrors: [{ field: ['query'], message, code: 'INVALID' }] });
  const schema = ctx.shop.schema;
  let doc: DocumentNode;
  try {
    doc = parse(args.query);
  } catch (error) {
    return fail(`Invalid bulk query: ${(error as Error).message}`);
  }
  const invalid = validate(schema, doc);
  if (invalid.length) return fail(`Invalid bulk query: ${invalid.map((e) => e.message).join('; ')}`);
  const operations = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operations[0];
  if (operations.length !== 1 || op?.kind !== Kind.OPERATION_DEFINITION || op.operation !== 'query') return fail('Bulk queries must contain exactly one query operation.');
  const roots = op.selectionSet.selections.filter((s) => s.kind === Kind.FIELD);
  const root = roots[0];
  const rootField = root?.kind === Kind.FIELD ? schema.getQueryType()!.getFields()[root.name.value] : undefined;
  if (roots.length !== 1 || !root || root.kind !== Kind.FIELD || !rootField || !isConnectionType(getNamedType(rootField.type) as GraphQLCompositeType)) {
    return fail('emulator: a bulk query must select exactly one root connection field.');
  }
  const stats = { connections: 0, maxDepth: 0, errors: [] as string[] };
  const plan = planOf(schema, doc, op.selectionSet, schema.getQueryType()!, 0, stats);
  if (stats.errors.length) return fail(stats.errors[0]!);
  if (stats.connections > 5) return fail('Bulk queries cannot contain more than 5 connections.');
  if (stats.maxDepth > 2) return fail('Bulk queries cannot contain connections with a nesting depth greater than 2.');
  const store = ctx.shop.store;
  const record: BulkOperationRecord = {
    __typename: 'BulkOperation', id: store.newId(), query: args.query, createdAt: store.stamp(), completedAt: null,
    readyAt: Date.now() + ctx.emulator.bulkRunningMs, done: false, failed: null, objectCount: 0, rootObjectCount: 0, fileSize: 0, file: null,
  };
  store.bulkOperations.set(record.id, record);
  const rootKey = root.alias?.value ?? root.name.value;
  ctx.shop.bulkJobs.add(runBulk(record, doc, rootKey, plan.connections.get(rootKey)!, ctx));
  return { bulkOperation: record, userErrors: [] };
}

/** Runs the query slice by slice and streams each slice's lines to the file: the store is never one string. */
async function runBulk(record: BulkOperationRecord, doc: DocumentNode, rootKey: string, plan: Plan, ctx: EmulatorContext): Promise<void> {
  const file = join(ctx.emulator.bulkDir, `${ctx.shop.shopId}-${record.id}.jsonl`);
  const out = createWriteStream(file);
  record.file = file;
  try {
    await yieldToLoop();
    let offset = 0;
    let total = 0;
    do {
      const bulk = { offset, limit: ROOT_SLICE, rootTotal: 0 };
      const result = await executeDocument({ ...ctx, bulk, applied: false }, doc, {});
      const items = itemsOf((result.data as any)?.[rootKey]);
      const lines: string[] = [];
      for (const item of items) emit(item, plan, undefined, lines);
      record.rootObjectCount += items.length;
      record.objectCount += lines.length;
      if (lines.length && !out.write(`${lines.join('\n')}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      if (result.errors?.length) {
        record.failed = result.errors.some((e) => e.extensions?.code === 'ACCESS_DENIED') ? 'ACCESS_DENIED' : 'INTERNAL_SERVER_ERROR';
        break;
      }
      total = bulk.rootTotal;
      offset += ROOT_SLICE;
      await yieldToLoop();
    } while (offset < total);
  } catch {
    record.failed = 'INTERNAL_SERVER_ERROR';
  }
  await new Promise<void>((resolve) => out.end(resolve));
  record.fileSize = out.bytesWritten;
  record.completedAt = dateTime(new Date());
  record.done = true;
}
