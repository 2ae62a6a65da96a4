import { Type } from '@sinclair/typebox';
import { defineRoute, type GraphQLData } from '../../define-route.ts';
import { EnumOf } from '../../graphql-enums.ts';
import { BomIdParams, CostFactorReference, Num, NullableNumber, NullableString, obj, RawReference } from './schemas.ts';
import { named } from '../../schema-helpers.ts';

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
  data: named('BillOfMaterials', obj({
    bomId: Type.String(), status: EnumOf('BomStatus'), name: Type.String(),
    productId: NullableString(), variantId: NullableString(), sku: NullableString(), price: NullableNumber(),
    totalRawMaterialCost: Num(), totalSubAssemblyCost: Num(), totalCost: Num(), directCostFactorCost: Num(),
    preAssembledQuantity: Num('Pre-assembled finished units summed over every location.'),
    rawMaterialReferences: Type.Array(RawReference),
    subAssemblyReferences: Type.Array(SubAssemblyReference),
    costFactorReferences: Type.Array(CostFactorReference),
  })),
  extraProblems: [404],
  operation: new URL('./get.graphql', import.meta.url),
  variables: ({ params }) => ({ bomId: params.id }),
  // The only reshaping: GraphQL cannot select a tree of unknown depth, so the BOM lists its
  // assembly bills once (assemblyBills) and each sub-assembly reference gets its bill as `node`
  // (nested once per bill and shared where the tree reuses it).
  toData: ({ bom }) => {
    const bills = new Map<string, GraphQLData>(bom.assemblyBills.map((a: GraphQLData) => [a.assemblyId, a]));
    const nested = new Map<string, GraphQLData>();
    const node = (id: string): GraphQLData => nested.get(id) ?? nested.set(id, withNodes(bills.get(id)!)).get(id)!;
    const withNodes = (recipe: GraphQLData): GraphQLData => ({
      ...recipe,
      subAssemblyReferences: recipe.subAssemblyReferences.map((l: GraphQLData) => ({ ...l, node: node(l.nodeId) })),
    });
    return withNodes(bom);
  },
});
