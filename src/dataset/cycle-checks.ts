import type { CheckContext } from './check-context.ts';
import { present } from './check-context.ts';
import type { DatasetAssemblyBill, DatasetLocationRule } from './types.ts';

// Assembly bills must form a DAG, or expanding a recipe never ends. The base recipes are checked
// first; then, for every location whose rules add or swap in an assembly bill, the recipes as
// that location sees them (a rule can close a loop the base recipes do not have).

interface Edge {
  to: string;
  /** Where the edge is written, for the error path. */
  path: string;
  fromRule: boolean;
}

/** How one location's rules change the base graph: bill id → its edges there. */
interface LocationGraph {
  changed: Map<string, Edge[]>;
  addsEdges: boolean;
}

/** Fed the assembly bills (once all their ids are known), then the location rules one by one. */
export class CycleChecks {
  private readonly ctx: CheckContext;
  private readonly base = new Map<string, Edge[]>();
  private baseHasCycle = false;
  private readonly perLocation = new Map<string, LocationGraph>();

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
  }

  /** All assembly bills, in file order; reports the cycles of the base recipes. */
  setBills(bills: Iterable<[DatasetAssemblyBill, number]>): void {
    for (const [bill, i] of bills) {
      if (typeof bill.assemblyId !== 'string' || this.base.has(bill.assemblyId)) continue;
      const edges: Edge[] = [];
      for (const [line, j] of present(bill.subAssemblyReferences)) {
        if (typeof line.nodeId === 'string' && this.ctx.assemblyBills.has(line.nodeId)) {
          edges.push({ to: line.nodeId, path: `$.assemblyBills[${i}].subAssemblyReferences[${j}].nodeId`, fromRule: false });
        }
      }
      this.base.set(bill.assemblyId, edges);
    }
    findCycles(this.base.keys(), (id) => this.base.get(id), (cycle, nodes) => {
      this.baseHasCycle = true;
      const closing = cycle[cycle.length - 1] as Edge;
      this.ctx.problems.add('cycles', closing.path, `assembly bills form a cycle: ${nodes.join(' → ')}`);
    });
  }

  addRule(rule: DatasetLocationRule, i: number): void {
    // A base cycle is present at every location too; one report of it is enough.
    if (this.baseHasCycle) return;
    if (rule.ownerType !== 'sub_assembly' || typeof rule.locationId !== 'string') return;
    const baseEdges = typeof rule.ownerId === 'string' ? this.base.get(rule.ownerId) : undefined;
    if (!baseEdges) return;
    const assemblyBills = this.ctx.assemblyBills;
    // Only a rule that adds an edge can close a loop; removals still count where one does.
    const dropped = new Set<string>();
    const added: Edge[] = [];
    for (const [override, k] of present(rule.overrides)) {
      const path = `$.locationRules[${i}].overrides[${k}]`;
      if (override.action === 'remove') dropped.add(override.nodeId);
      if (override.action === 'replace' && assemblyBills.has(override.replacementNodeId)) {
        dropped.add(override.nodeId);
        added.push({ to: override.replacementNodeId, path: `${path}.replacementNodeId`, fromRule: true });
      }
      if (override.action === 'add' && assemblyBills.has(override.nodeId)) {
        added.push({ to: override.nodeId, path: `${path}.nodeId`, fromRule: true });
      }
    }
    if (added.length === 0 && dropped.size === 0) return;
    let graph = this.perLocation.get(rule.locationId);
    if (!graph) this.perLocation.set(rule.locationId, (graph = { changed: new Map(), addsEdges: false }));
    if (added.length > 0) graph.addsEdges = true;
    graph.changed.set(rule.ownerId, [...baseEdges.filter((edge) => !dropped.has(edge.to)), ...added]);
  }

  /** After the last location rule: the cycles that rules close at their location. */
  finish(): void {
    if (this.baseHasCycle) return;
    for (const [locationId, { changed, addsEdges }] of this.perLocation) {
      if (!addsEdges) continue;
      findCycles(this.base.keys(), (id) => changed.get(id) ?? this.base.get(id), (cycle, nodes) => {
        const ruleEdge = cycle.find((edge) => edge.fromRule) ?? (cycle[0] as Edge);
        this.ctx.problems.add('cycles', ruleEdge.path, `at location "${locationId}" the location rules make assembly bills form a cycle: ${nodes.join(' → ')}`);
      });
    }
  }
}

/**
 * Iterative depth-first search (recipes can be deep; no recursion limit). Calls `onCycle` for
 * each back edge with the edges of the cycle and its node ids (first node repeated at the end).
 */
function findCycles(roots: Iterable<string>, edgesOf: (id: string) => Edge[] | undefined, onCycle: (cycle: Edge[], nodes: string[]) => void): void {
  const state = new Map<string, 'open' | 'done'>();
  for (const root of roots) {
    if (state.has(root)) continue;
    // Parallel stacks: the node, the next edge to follow, and the edge that entered it.
    const nodes: string[] = [root];
    const next: number[] = [0];
    const entered: Edge[] = [];
    state.set(root, 'open');
    while (nodes.length > 0) {
      const top = nodes.length - 1;
      const node = nodes[top] as string;
      const edges = edgesOf(node) ?? [];
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
