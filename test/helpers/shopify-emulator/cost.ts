import {
  getNamedType, isAbstractType, isCompositeType, isObjectType, Kind, type DocumentNode, type FragmentDefinitionNode,
  type GraphQLCompositeType, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode, valueFromAST,
} from 'graphql';
import { isConnectionType } from './bulk.ts';

// Calculated query cost (https://shopify.dev/docs/api/usage/rate-limits#graphql-admin-api-rate-limits,
// "Calculated query cost"): an object 1, a scalar or enum 0, a connection 2 + `first` × its node's
// cost, a mutation 10; a request above the single-query limit (1,000) is refused before it runs,
// and `extensions.cost` reports the requested and actual cost with the bucket's throttle status.

/** Shopify's calculated query cost: a mutation field 10, an object 1, a scalar or enum 0, a connection 2 + size × node. */
export const MUTATION_COST = 10;

export function findOperation(doc: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
}

/**
 * The cost of an operation. Without `data`, the requested cost: every connection sized by its
 * `first`/`last`. With the answer's `data`, the actual cost: each connection by what it returned
 * (Shopify refunds the difference).
 */
export function operationCost(schema: GraphQLSchema, doc: DocumentNode, op: OperationDefinitionNode, variables: Record<string, unknown>, data?: unknown): number {
  if (op.operation === 'mutation') return op.selectionSet.selections.filter((s) => s.kind === Kind.FIELD && !s.name.value.startsWith('__')).length * MUTATION_COST;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const root = op.operation === 'query' ? schema.getQueryType()! : schema.getSubscriptionType()!;
  return selectionCost(schema, fragments, op.selectionSet, root, variables, data === undefined ? undefined : (data ?? {}));
}

function selectionCost(schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>, set: SelectionSetNode, type: GraphQLCompositeType, variables: Record<string, unknown>, data: any): number {
  let cost = 0;
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD) {
      const frag = sel.kind === Kind.INLINE_FRAGMENT ? sel : fragments.get(sel.name.value);
      if (!frag) continue;
      const on = frag.typeCondition ? (schema.getType(frag.typeCondition.name.value) as GraphQLCompositeType) : type;
      cost += selectionCost(schema, fragments, frag.selectionSet, on, variables, data);
      continue;
    }
    if (!sel.selectionSet || !('getFields' in type)) continue;
    const field = type.getFields()[sel.name.value];
    if (!field) continue;
    const named = getNamedType(field.type) as unknown as GraphQLCompositeType | ReturnType<typeof getNamedType>;
    if (!isCompositeType(named)) continue;
    const key = sel.alias?.value ?? sel.name.value;
    const value = data === undefined ? undefined : data?.[key];
    if (data !== undefined && (value === undefined || value === null)) continue;
    if (isConnectionType(named)) {
      const args: Record<string, unknown> = {};
      for (const arg of sel.arguments ?? []) {
        const def = field.args.find((a) => a.name === arg.name.value);
        if (def) args[arg.name.value] = valueFromAST(arg.value, def.type, variables);
      }
      const nodeSet = nodeSelection(sel.selectionSet);
      const nodeType = getNamedType((named as any).getFields().nodes.type) as unknown as GraphQLCompositeType;
      if (data === undefined) {
        const size = Number(args.first ?? args.last ?? 0);
        cost += 2 + size * (nodeSet.reduce((n, s) => n + 1 + selectionCost(schema, fragments, s, nodeType, variables, undefined), 0));
      } else {
        const items: any[] = Array.isArray(value.nodes) ? value.nodes : Array.isArray(value.edges) ? value.edges.map((e: any) => e?.node) : [];
        cost += 2;
        for (const item of items) for (const s of nodeSet) cost += 1 + selectionCost(schema, fragments, s, nodeType, variables, item ?? {});
      }
    } else if (isObjectType(named) || isAbstractType(named)) {
      // A plain list of objects costs what one element does (Shopify sizes only connections).
      const values: unknown[] = Array.isArray(value) ? value : [value];
      cost += 1 + values.reduce<number>((max, v) => Math.max(max, selectionCost(schema, fragments, sel.selectionSet!, named, variables, data === undefined ? undefined : v ?? {})), 0);
    }
  }
  return cost;
}

/** The node selections of a connection: `edges { node { … } }` and `nodes { … }`. */
function nodeSelection(set: SelectionSetNode): SelectionSetNode[] {
  const out: SelectionSetNode[] = [];
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD || !sel.selectionSet) continue;
    if (sel.name.value === 'nodes') out.push(sel.selectionSet);
    if (sel.name.value === 'edges') {
      for (const inner of sel.selectionSet.selections) if (inner.kind === Kind.FIELD && inner.name.value === 'node' && inner.selectionSet) out.push(inner.selectionSet);
    }
  }
  return out;
}
