import type { CheckContext } from './check-context.ts';
import { present, report } from './check-context.ts';

// Assembly bills must form a DAG, or expanding a recipe never ends. The base recipes are checked
// first; then, for every location whose rules add or swap in an assembly bill, the recipes as
// that location sees them (a rule can close a loop the base recipes do not have).

interface Edge {
  to: string;
  /** Where the edge is written, for the error path. */
  path: string;
  fromRule: boolean;
}

export function checkAssemblyCycles(ctx: CheckContext): void {
  const base = new Map<string, Edge[]>();
  for (const [bill, i] of present(ctx.dataset.assemblyBills)) {
    if (typeof bill.assemblyId !== 'string' || base.has(bill.assemblyId)) continue;
    const edges: Edge[] = [];
    for (const [line, j] of present(bill.subAssemblyReferences)) {
      if (typeof line.nodeId === 'string' && ctx.assemblyBills.has(line.nodeId)) {
        edges.push({ to: line.nodeId, path: `$.assemblyBills[${i}].subAssemblyReferences[${j}].nodeId`, fromRule: false });
      }
    }
    base.set(bill.assemblyId, edges);
  }
  let baseHasCycle = false;
  findCycles(base, (cycle, nodes) => {
    baseHasCycle = true;
    const closing = cycle[cycle.length - 1] as Edge;
    report(ctx, closing.path, `assembly bills form a cycle: ${nodes.join(' → ')}`);
  });
  // A base cycle is present at every location too; one report of it is enough.
  if (!baseHasCycle) checkCyclesThroughLocationRules(ctx, base);
}

function checkCyclesThroughLocationRules(ctx: CheckContext, base: Map<string, Edge[]>): void {
  // location id → bill id → that bill's edges at the location
  const perLocation = new Map<string, Map<string, Edge[]>>();
  // Only a rule that adds an edge can close a loop; removals still count where one does.
  const withNewEdges = new Set<string>();
  for (const [rule, i] of present(ctx.dataset.locationRules)) {
    if (rule.ownerType !== 'sub_assembly' || typeof rule.locationId !== 'string') continue;
    const baseEdges = typeof rule.ownerId === 'string' ? base.get(rule.ownerId) : undefined;
    if (!baseEdges) continue;
    const dropped = new Set<string>();
    const added: Edge[] = [];
    for (const [override, k] of present(rule.overrides)) {
      const path = `$.locationRules[${i}].overrides[${k}]`;
      if (override.action === 'remove') dropped.add(override.nodeId);
      if (override.action === 'replace' && ctx.assemblyBills.has(override.replacementNodeId)) {
        dropped.add(override.nodeId);
        added.push({ to: override.replacementNodeId, path: `${path}.replacementNodeId`, fromRule: true });
      }
      if (override.action === 'add' && ctx.assemblyBills.has(override.nodeId)) {
        added.push({ to: override.nodeId, path: `${path}.nodeId`, fromRule: true });
      }
    }
    if (added.length === 0 && dropped.size === 0) continue;
    if (added.length > 0) withNewEdges.add(rule.locationId);
    let graph = perLocation.get(rule.locationId);
    if (!graph) perLocation.set(rule.locationId, (graph = new Map(base)));
    graph.set(rule.ownerId, [...baseEdges.filter((edge) => !dropped.has(edge.to)), ...added]);
  }
  for (const [locationId, graph] of perLocation) {
    if (!withNewEdges.has(locationId)) continue;
    findCycles(graph, (cycle, nodes) => {
      const ruleEdge = cycle.find((edge) => edge.fromRule) ?? (cycle[0] as Edge);
      report(ctx, ruleEdge.path, `at location "${locationId}" the location rules make assembly bills form a cycle: ${nodes.join(' → ')}`);
    });
  }
}

/**
 * Iterative depth-first search (recipes can be deep; no recursion limit). Calls `onCycle` for
 * each back edge with the edges of the cycle and its node ids (first node repeated at the end).
 */
function findCycles(graph: Map<string, Edge[]>, onCycle: (cycle: Edge[], nodes: string[]) => void): void {
  const state = new Map<string, 'open' | 'done'>();
  for (const root of graph.keys()) {
    if (state.has(root)) continue;
    // Parallel stacks: the node, the next edge to follow, and the edge that entered it.
    const nodes: string[] = [root];
    const next: number[] = [0];
    const entered: Edge[] = [];
    state.set(root, 'open');
    while (nodes.length > 0) {
      const top = nodes.length - 1;
      const node = nodes[top] as string;
      const edges = graph.get(node) ?? [];
      const edgeIndex = next[top] as number;
      if (edgeIndex >= edges.length) {
        state.set(node, 'done');
        nodes.pop();
        next.pop();
        entered.pop();
        continue;
      }
      next[top] = edgeIndex + 1;
      const edge = edges[edgeIndex] as Edge;
      const seen = state.get(edge.to);
      if (seen === 'open') {
        const start = nodes.indexOf(edge.to);
        onCycle([...entered.slice(start), edge], [...nodes.slice(start), edge.to]);
      } else if (seen === undefined) {
        state.set(edge.to, 'open');
        nodes.push(edge.to);
        next.push(0);
        entered.push(edge);
      }
    }
  }
}
