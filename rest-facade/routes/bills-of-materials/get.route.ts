import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import {
  BomIdParams, CostFactorReference, costReferences, Num, NullableNumber, NullableString, num, num0, obj, RawReference, rawReferences,
  type GqlRecipe,
} from './schemas.ts';

// The sub-assembly tree nests to full depth; the schema is recursive (one named definition).
const SubAssemblyReference = Type.Recursive((Self) => obj({
  nodeId: Type.String({ description: 'The assembly id (ASM-<id>).' }),
  quantity: Num(),
  node: obj({
    assemblyName: Type.String(),
    unitCost: Num('Cost of one unit of the assembly bill (base recipe).'),
    onlyConsumePreassembled: Type.Boolean(),
    rawMaterialReferences: Type.Array(RawReference),
    subAssemblyReferences: Type.Array(Self),
    costFactorReferences: Type.Array(CostFactorReference),
  }),
}), { $id: 'BomSubAssemblyReference' });

const description = `One BOM with its costs and its base recipe hydrated to full depth in one call: rawMaterialReferences,
subAssemblyReferences (each node with assemblyName, unitCost and its own references, recursively) and costFactorReferences.
\`data\` is the BOM itself. productId, sku and price come from the finished good's platform variant (null when the BOM has no
variant). preAssembledQuantity = the finished good's pre-assembled units summed over every location (0 without a variant).
Costs as in the list; a material with no unit cost counts 0. Location rules are not applied here (see /location-rules).
Cost: 5 SQL round trips whatever the depth or width of the tree (one recursive query loads every bill).
404 NOT_FOUND for an unknown id (and for another shop's BOM).`;

type GqlAssembly = GqlRecipe & { assemblyId: string; name: string; onlyConsumePreassembled: boolean; unitCost: string };

export const getBomRoute = defineRoute({
  method: 'GET',
  url: '/bills-of-materials/:id',
  scope: 'read',
  operationId: 'getBillOfMaterials',
  summary: 'Read a bill of materials with its recipe',
  description,
  tag: 'bills-of-materials',
  params: BomIdParams,
  querystring: Type.Object({}, { additionalProperties: false }),
  data: obj({
    bomId: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]), name: Type.String(),
    productId: NullableString(), variantId: NullableString(), sku: NullableString(), price: NullableNumber(),
    totalRawMaterialCost: Num(), totalSubAssemblyCost: Num(), totalCost: Num(), directCostFactorCost: Num(),
    preAssembledQuantity: Num('Pre-assembled finished units summed over every location.'),
    rawMaterialReferences: Type.Array(RawReference),
    subAssemblyReferences: Type.Array(SubAssemblyReference),
    costFactorReferences: Type.Array(CostFactorReference),
  }),
  extraProblems: [404],
  operation: new URL('./get.graphql', import.meta.url),
  variables: ({ params }) => ({ bomId: params.id }),
  toData: (result) => {
    const b = result.bom as Record<string, any> & GqlRecipe;
    const assemblies = new Map((b.assemblyBills as GqlAssembly[]).map((a) => [a.assemblyId, a]));
    // Each assembly's node is built once and shared where the tree reuses it.
    const built = new Map<string, unknown>();
    const node = (id: string): unknown => {
      const known = built.get(id);
      if (known) return known;
      const a = assemblies.get(id)!;
      const value = {
        assemblyName: a.name, unitCost: num0(a.unitCost), onlyConsumePreassembled: a.onlyConsumePreassembled,
        rawMaterialReferences: rawReferences(a.rawMaterialLines), subAssemblyReferences: subs(a), costFactorReferences: costReferences(a.costFactorLines),
      };
      built.set(id, value);
      return value;
    };
    const subs = (r: GqlRecipe): unknown[] => r.subAssemblyLines.map((l) => ({ nodeId: l.nodeId, quantity: num0(l.quantity), node: node(l.nodeId) }));
    return {
      bomId: b.bomId, status: b.status, name: b.name, productId: b.productId, variantId: b.variantId, sku: b.sku, price: num(b.price),
      totalRawMaterialCost: num0(b.totalRawMaterialCost), totalSubAssemblyCost: num0(b.totalSubAssemblyCost), totalCost: num0(b.totalCost),
      directCostFactorCost: num0(b.directCostFactorCost), preAssembledQuantity: num0(b.preAssembledQuantity),
      rawMaterialReferences: rawReferences(b.rawMaterialLines), subAssemblyReferences: subs(b), costFactorReferences: costReferences(b.costFactorLines),
    };
  },
});
