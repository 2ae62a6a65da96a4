// The floor's BOM tree: recipe lines of every reachable bill (one query) nested as the REST read
// nests them, with the base-recipe cost roll-up (docs/datasets.md) in exact decimals.
import { Decimal } from 'decimal.js';

export interface LineRow {
  owner_type: string;
  owner_id: string;
  line_type: 'raw' | 'sub' | 'cost';
  node_id: string;
  quantity: string;
  waste_percentage: string;
  product_name: string | null;
  variant_name: string | null;
  sku: string | null;
  unit: string | null;
  unit_cost: string | null;
  origin: string | null;
  is_non_essential_material: boolean | null;
  assembly_name: string | null;
  only_consume_preassembled: boolean | null;
  cost_name: string | null;
  cost_kind: string | null;
  cost_unit: string | null;
  cost_unit_cost: string | null;
}

interface Node {
  raw: object[];
  sub: object[];
  cost: object[];
  rawCost: Decimal;
  subCost: Decimal;
  factorCost: Decimal;
}

const num = (v: string | null) => (v === null ? null : Number(v));
const out = (d: Decimal) => d.toDecimalPlaces(6, Decimal.ROUND_HALF_UP).toNumber();

export function bomTree(bomId: string, rows: LineRow[]): { raw: object[]; sub: object[]; cost: object[]; costs: Record<string, number> } {
  const byOwner = new Map<string, LineRow[]>();
  for (const row of rows) {
    const key = `${row.owner_type}:${row.owner_id}`;
    (byOwner.get(key) ?? byOwner.set(key, []).get(key)!).push(row);
  }
  const built = new Map<string, Node>();
  const build = (key: string): Node => {
    const done = built.get(key);
    if (done) return done;
    const node: Node = { raw: [], sub: [], cost: [], rawCost: new Decimal(0), subCost: new Decimal(0), factorCost: new Decimal(0) };
    for (const r of byOwner.get(key) ?? []) {
      const quantity = new Decimal(r.quantity);
      if (r.line_type === 'raw') {
        node.rawCost = node.rawCost.plus(new Decimal(r.unit_cost ?? 0).times(quantity).times(new Decimal(r.waste_percentage).div(100).plus(1)));
        node.raw.push({
          nodeId: r.node_id, quantity: Number(r.quantity), wastePercentage: Number(r.waste_percentage),
          node: {
            productName: r.product_name, variantName: r.variant_name, sku: r.sku, unit: r.unit, unitCost: num(r.unit_cost),
            origin: r.origin, isNonEssential: r.is_non_essential_material,
          },
        });
      } else if (r.line_type === 'sub') {
        const child = build(`sub_assembly:${r.node_id}`);
        const unitCost = child.rawCost.plus(child.subCost).plus(child.factorCost);
        node.subCost = node.subCost.plus(unitCost.times(quantity));
        node.sub.push({
          nodeId: r.node_id, quantity: Number(r.quantity),
          node: {
            assemblyName: r.assembly_name, unitCost: out(unitCost), onlyConsumePreassembled: r.only_consume_preassembled,
            rawMaterialReferences: child.raw, subAssemblyReferences: child.sub, costFactorReferences: child.cost,
          },
        });
      } else {
        node.factorCost = node.factorCost.plus(new Decimal(r.cost_unit_cost ?? 0).times(quantity));
        node.cost.push({
          costFactorId: r.node_id, quantity: Number(r.quantity),
          node: { name: r.cost_name, kind: r.cost_kind, unit: r.cost_unit, unitCost: num(r.cost_unit_cost) },
        });
      }
    }
    built.set(key, node);
    return node;
  };
  const root = build(`bom:${bomId}`);
  return {
    raw: root.raw, sub: root.sub, cost: root.cost,
    costs: {
      totalRawMaterialCost: out(root.rawCost), totalSubAssemblyCost: out(root.subCost), directCostFactorCost: out(root.factorCost),
      totalCost: out(root.rawCost.plus(root.subCost).plus(root.factorCost)),
    },
  };
}
