import { Type } from '@sinclair/typebox';
import { defineRoute, type GraphQLData } from '../../define-route.ts';
import { BomIdParams } from './schemas.ts';
import { under, type DataOverrides, type Json } from '../../data-overrides.ts';

const RECIPE_REFERENCES: DataOverrides = {
  rawMaterialReferences: { title: 'BomRawMaterialReference' },
  'rawMaterialReferences.node': { title: 'BomMaterialNode' },
  costFactorReferences: { title: 'BomCostFactorReference' },
};

/**
 * The shape toData gives: `assemblyBills` (each bill once) becomes the `node` of each sub-assembly
 * reference, recursively (one named schema, BomSubAssemblyReference, referring to itself).
 */
function subAssemblyTree(bom: Json): Json {
  const { assemblyBills, ...properties } = bom.properties;
  const { assemblyId: _, ...bill } = assemblyBills.items.properties;
  const self = 'BomSubAssemblyReference';
  const line = bom.properties.subAssemblyReferences.items;
  const node = { ...assemblyBills.items, properties: { ...bill, subAssemblyReferences: { type: 'array', items: { $ref: self } } }, required: assemblyBills.items.required.filter((k: string) => k !== 'assemblyId') };
  const reference = { $id: self, ...line, properties: { ...line.properties, node }, required: [...line.required, 'node'] };
  return { ...bom, properties: { ...properties, subAssemblyReferences: { ...properties.subAssemblyReferences, items: reference } }, required: bom.required.filter((k: string) => k !== 'assemblyBills') };
}

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
  extraProblems: [404],
  dataOverrides: {
    '': { title: 'BillOfMaterials', to: subAssemblyTree },
    ...RECIPE_REFERENCES,
    ...under('assemblyBills', RECIPE_REFERENCES),
  },
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
