import { globSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GraphQLEnumType, GraphQLObjectType, GraphQLScalarType, getNamedType, isInterfaceType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { routeDataSchema } from '../../rest-facade/derive-schema.ts';
import { loadOperation } from '../../rest-facade/operations.ts';
import { routes } from '../../rest-facade/routes/index.ts';
import { WORK_ORDER_STATE_TABLE } from '../../schema/types/work-orders/enums.ts';
import { clientSchema, getSchema } from '../../schema/index.ts';
import { SORT_DIRECTIONS } from '../../src/db/keyset.ts';
import { USER_ERROR_CODES } from '../../src/kernel/domain-error.ts';
import * as events from '../../src/modules/events/event-vocabulary.ts';
import * as materials from '../../src/modules/materials/material-vocabulary.ts';
import * as planning from '../../src/modules/planning/planning-vocabulary.ts';
import * as recipes from '../../src/modules/boms/recipe-vocabulary.ts';
import * as shops from '../../src/modules/shops/shop-vocabulary.ts';
import * as stock from '../../src/modules/stock/stock-vocabulary.ts';
import * as workOrders from '../../src/modules/work-orders/work-order-vocabulary.ts';
import { movesFrom } from '../../src/modules/work-orders/work-order-states.ts';

// Rule (issue 19 item 1, "one vocabulary per module, feeding every surface"): every value set is
// spelled once, in its module's `*-vocabulary.ts` (sort directions in src/db/keyset.ts); the GraphQL
// enums are built from those vocabularies, no GraphQL field gives a fixed set as a String, the REST
// facade's enums are GraphQL enums (it learns them through the schema), and no other file of src/,
// schema/ or rest-facade/ writes a set out again.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every GraphQL enum and the vocabulary it is built from. A new enum joins this table. */
const ENUMS: Record<string, readonly string[]> = {
  // work orders
  WorkOrderStatus: workOrders.WORK_ORDER_STATUSES,
  WorkOrderPriority: workOrders.WORK_ORDER_PRIORITIES,
  WorkOrderSourceType: workOrders.WORK_ORDER_SOURCE_TYPES,
  WorkOrderSort: workOrders.WORK_ORDER_SORTS,
  WorkOrderSortDirection: SORT_DIRECTIONS,
  BuildRunStatus: workOrders.BUILD_RUN_STATUSES,
  BuildRunType: workOrders.BUILD_RUN_TYPES,
  BuildRunMode: workOrders.BUILD_RUN_MODES,
  TransitionDirection: workOrders.TRANSITION_DIRECTIONS,
  QcDecision: workOrders.QC_DECISIONS,
  ReworkItemStatus: workOrders.REWORK_ITEM_STATUSES,
  WorkOrderContributionSource: workOrders.CONTRIBUTION_SOURCES,
  WorkOrderAllocationHolderType: workOrders.WORK_ORDER_HOLDER_TYPES,
  WorkOrderWarningCode: Object.keys(workOrders.WORK_ORDER_WARNINGS),
  // recipes
  BillOwnerType: recipes.BILL_OWNER_TYPES,
  BomStatus: recipes.BOM_STATUSES,
  BomStatusFilter: recipes.BOM_STATUS_FILTERS,
  BomSort: recipes.BOM_SORTS,
  BomSortOrder: SORT_DIRECTIONS,
  CostFactorKind: recipes.COST_FACTOR_KINDS,
  LocationRuleAction: recipes.LOCATION_RULE_ACTIONS,
  StockedLineType: recipes.STOCKED_LINE_TYPES,
  BillVersionState: recipes.BILL_VERSION_STATES,
  LimitingComponentOrigin: recipes.LIMITING_COMPONENT_ORIGINS,
  StorefrontStock: recipes.STOREFRONT_STOCK_MODES,
  // materials and stock
  RawMaterialOrigin: materials.MATERIAL_ORIGINS,
  RawMaterialOriginFilter: materials.MATERIAL_ORIGIN_FILTERS,
  RawMaterialUsageFilter: materials.MATERIAL_USAGE_FILTERS,
  MaterialSort: materials.MATERIAL_SORTS,
  RawMaterialSortOrder: SORT_DIRECTIONS,
  MaterialUsageSource: materials.MATERIAL_USAGE_SOURCES,
  StockKind: stock.STOCK_KINDS,
  StockItemType: stock.SHELF_ITEM_TYPES,
  StockCommitmentHolderType: stock.COMMITMENT_HOLDER_TYPES,
  InventoryAdjustmentSource: stock.MOVEMENT_SOURCES,
  PreassembledAdjustmentReason: stock.SHELF_ADJUSTMENT_REASONS,
  StockLevelChangeSource: stock.LEVEL_CHANGE_SOURCES,
  // planning
  PlanDemandSource: planning.DEMAND_SOURCE_TYPES,
  PlanMadeItemType: planning.MADE_ITEM_TYPES,
  PlanItemType: planning.PLANNED_ITEM_TYPES,
  // events and webhooks (a topic's GraphQL name has no dot)
  WebhookTopic: events.EVENT_TOPICS.map(events.topicEnumName),
  WebhookDeliveryStatus: events.WEBHOOK_DELIVERY_STATUSES,
  WebhookNote: Object.keys(events.WEBHOOK_NOTES).map((note) => note.replace('.', '_').toUpperCase()),
  // the kernel's and the mutations' codes
  UserErrorCode: USER_ERROR_CODES,
  UserErrorBlockerCode: [...Object.keys(workOrders.TRANSITION_BLOCKERS), ...Object.keys(recipes.CATALOG_BLOCKERS)],
};

/**
 * String fields that stay String on purpose: a bill version's trigger is text in datasets (a loaded
 * file carries labels of its own), a missing reference's kind is a phrase (`build run`).
 */
const TEXT_ON_PURPOSE = new Set(['BillVersion.trigger', 'UserErrorMissing.kind']);

const sorted = (values: Iterable<string>) => [...values].sort();

/** Enums of the served schema, without introspection's and federation's own. */
function schemaEnums(): GraphQLEnumType[] {
  return Object.values(getSchema().getTypeMap())
    .filter((t): t is GraphQLEnumType => t instanceof GraphQLEnumType && !t.name.startsWith('__') && !t.name.startsWith('link__'));
}

describe('GraphQL enums are the vocabularies', () => {
  it('every enum of the schema is built from a vocabulary and has exactly its values', () => {
    const enums = schemaEnums();
    expect(sorted(enums.map((e) => e.name))).toEqual(sorted(Object.keys(ENUMS)));
    for (const e of enums) expect(sorted(e.getValues().map((v) => v.name)), e.name).toEqual(sorted(ENUMS[e.name]!));
  });

  it('warning codes carry their remedies and blockers their meaning, from the vocabularies', () => {
    const warnings = getSchema().getType('WorkOrderWarningCode') as GraphQLEnumType;
    for (const [code, { remedy }] of Object.entries(workOrders.WORK_ORDER_WARNINGS)) {
      expect(warnings.getValue(code)?.description, code).toContain(remedy);
    }
    const blockers = getSchema().getType('UserErrorBlockerCode') as GraphQLEnumType;
    for (const [code, meaning] of Object.entries({ ...workOrders.TRANSITION_BLOCKERS, ...recipes.CATALOG_BLOCKERS })) {
      expect(blockers.getValue(code)?.description, code).toBe(meaning);
    }
  });

  it('WorkOrderStatus describes the state table of the vocabulary, every move of it', () => {
    const description = (getSchema().getType('WorkOrderStatus') as GraphQLEnumType).description ?? '';
    expect(description).toContain(WORK_ORDER_STATE_TABLE);
    for (const from of workOrders.WORK_ORDER_STATUSES) {
      const row = WORK_ORDER_STATE_TABLE.split('\n').find((line) => line.startsWith(`| ${from} |`))!;
      for (const move of movesFrom(from)) expect(row, `${from} → ${move.to}`).toContain(move.to);
    }
  });
});

describe('no GraphQL field gives a fixed set as a String', () => {
  const schema = clientSchema();
  const fieldsOf = (type: GraphQLObjectType) => Object.values(type.getFields()).map((f) => ({ name: `${type.name}.${f.name}`, field: f }));
  const objectFields = Object.values(schema.getTypeMap())
    .filter((t): t is GraphQLObjectType => (isObjectType(t) || isInterfaceType(t)) && !t.name.startsWith('__'))
    .flatMap((t) => fieldsOf(t as GraphQLObjectType));
  const isString = (f: (typeof objectFields)[number]) => {
    const type = getNamedType(f.field.type);
    return type instanceof GraphQLScalarType && type.name === 'String';
  };

  it('a field named like an enum field of the schema (status, ownerType, origin, kind, code, …) is an enum too', () => {
    const enumFieldNames = new Set(objectFields.filter((f) => getNamedType(f.field.type) instanceof GraphQLEnumType).map((f) => f.name.split('.')[1]!));
    const stringly = objectFields.filter((f) => isString(f) && enumFieldNames.has(f.name.split('.')[1]!) && !TEXT_ON_PURPOSE.has(f.name));
    expect(stringly.map((f) => f.name)).toEqual([]);
  });

  it('no String field describes itself as a list of values (`a | b`)', () => {
    const listing = objectFields.filter((f) => isString(f) && /\b[a-z_]+ \| [a-z_]+\b/i.test(f.field.description ?? '') && !TEXT_ON_PURPOSE.has(f.name));
    expect(listing.map((f) => `${f.name}: ${f.field.description}`)).toEqual([]);
  });

  it('no type file exposes a vocabulary field with t.exposeString', () => {
    const names = ['status', 'ownerType', 'holderType', 'itemType', 'origin', 'kind', 'source', 'action', 'change', 'lineType', 'state', 'decision',
      'from_status', 'to_status', 'code', 'stock', 'direction', 'priority', 'sourceType', 'runType'];
    const found = globSync('schema/types/**/*.ts', { cwd: ROOT }).flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/exposeString\('(\w+)'/g)].filter((m) => names.includes(m[1]!)).map((m) => `${file}: ${m[1]}`));
    // UserErrorMissing.kind is a phrase (TEXT_ON_PURPOSE).
    expect(found.filter((f) => f !== 'schema/types/common/payload.ts: kind')).toEqual([]);
  });
});

/** The string-value unions of a JSON schema (TypeBox literal unions, `enum` arrays), each as its values, with the path. */
function valueSets(schema: unknown, path: string, out: { path: string; values: string[] }[] = []): { path: string; values: string[] }[] {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => valueSets(s, `${path}[${i}]`, out));
    return out;
  }
  if (schema === null || typeof schema !== 'object') return out;
  const node = schema as Record<string, unknown>;
  const members = node.anyOf as Record<string, unknown>[] | undefined;
  const literals = members?.filter((m) => typeof m.const === 'string').map((m) => m.const as string);
  if (members && literals && literals.length > 1 && members.every((m) => typeof m.const === 'string' || m.type === 'null')) {
    out.push({ path, values: literals });
  } else if (Array.isArray(node.enum) && node.enum.filter((v) => typeof v === 'string').length > 1) {
    out.push({ path, values: node.enum.filter((v): v is string => typeof v === 'string') });
  }
  for (const [key, value] of Object.entries(node)) valueSets(value, `${path}.${key}`, out);
  return out;
}

describe('REST takes its value sets from the GraphQL schema', () => {
  it('every enum of a route schema (query, path, body, data) has exactly the values of a GraphQL enum', () => {
    const graphql = new Map(schemaEnums().map((e) => [sorted(e.getValues().map((v) => v.name)).join(','), e.name]));
    const schema = getSchema();
    const sets = routes.flatMap((route) => [
      ...(['querystring', 'params', 'body'] as const).flatMap((part) => valueSets(route[part], `${route.method} ${route.url} ${part}`)),
      ...valueSets(routeDataSchema(schema, route, loadOperation(schema, route.operation).document), `${route.method} ${route.url} data`),
    ]);
    expect(sets.length).toBeGreaterThan(30);
    const strays = sets.filter((s) => !graphql.has(sorted(s.values).join(',')));
    expect(strays.map((s) => `${s.path}: ${s.values.join(' | ')}`)).toEqual([]);
  });

  it('the facade imports no domain module: it learns value sets through the schema', () => {
    const imports = globSync('rest-facade/**/*.ts', { cwd: ROOT }).flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/from '([^']+)'/g)].filter((m) => m[1]!.includes('src/modules/')).map((m) => `${file}: ${m[1]}`));
    expect(imports).toEqual([]);
  });
});

describe('each value set is written once', () => {
  /** Every vocabulary set: tuples of two or more values, and the keys of code tables (warnings, blockers). */
  const vocabularies = [materials, recipes, shops, stock, workOrders].flatMap((module) => Object.entries(module).flatMap(([name, value]): [string, string[]][] => {
    if (Array.isArray(value) && value.length > 1 && value.every((v) => typeof v === 'string')) return [[name, value as string[]]];
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 1) return [[name, Object.keys(value)]];
    return [];
  }));
  const sets = new Map([...vocabularies, ['SORT_DIRECTIONS', [...SORT_DIRECTIONS]] as [string, string[]]].map(([name, values]) => [sorted(values).join(','), name]));

  it('no file of src/, schema/ or rest-facade/ but a vocabulary lists a whole set (`\'a\', \'b\'` or `\'a\' | \'b\'`, any order)', () => {
    expect(sets.size).toBeGreaterThan(30);
    const homes = new Set(['src/db/keyset.ts']);
    const copies: string[] = [];
    for (const file of globSync(['src/**/*.ts', 'schema/**/*.ts', 'rest-facade/**/*.ts'], { cwd: ROOT })) {
      if (file.endsWith('-vocabulary.ts') || homes.has(file)) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/'[A-Za-z_]+'(?:\s*[,|]\s*'[A-Za-z_]+')+/g)) {
        const name = sets.get(sorted(new Set([...m[0].matchAll(/'([A-Za-z_]+)'/g)].map((v) => v[1]!))).join(','));
        if (name) copies.push(`${file}: ${m[0]} (${name})`);
      }
    }
    expect(copies).toEqual([]);
  });

  it('the scan finds a copy where there is one', () => {
    const text = "type Kind = 'preassembled' | 'material';";
    const match = [...text.matchAll(/'[A-Za-z_]+'(?:\s*[,|]\s*'[A-Za-z_]+')+/g)][0]![0];
    expect(sets.get(sorted([...match.matchAll(/'([A-Za-z_]+)'/g)].map((v) => v[1]!)).join(','))).toBe('STOCK_KINDS');
  });
});
