import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { decimalVariable, NullableNumber, NullableStr, Str, VariantIdParams } from './schemas.ts';

export const getRawMaterialRoute = defineRoute({
  method: 'GET',
  url: '/raw-materials/:variantId',
  scope: 'read',
  operationId: 'getRawMaterial',
  summary: 'Read one raw material',
  description: `The material (list-row fields without usage counts). With includeConnections=true, \`connections.boms\` and
\`connections.subAssemblies\` list every use by a bill: one entry per base-recipe line (\`source: "recipe"\`,
\`locationId: null\`) and one per location-rule override that adds, adjusts, replaces or removes the material at a
location (\`source: "locationRule"\`, \`action\`, \`locationId\`, \`locationName\`), each with the bill id (\`bomId\` /
\`assemblyId\`), its name, \`quantity\` of this material per unit of the bill and \`wastePercentage\`.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  querystring: Type.Object(
    { includeConnections: Type.Boolean({ default: false, description: '`true` adds `connections`.' }) },
    { additionalProperties: false },
  ),
  dataOverrides: {
    // REST puts `connections` beside the material (see toData).
    '': {
      to: ({ properties: { connections, ...material }, required, ...object }) =>
        ({
          additionalProperties: false, type: 'object', required: ['material'],
          properties: { material: { ...object, properties: material, required, title: 'RawMaterial' }, connections },
        }),
    },
    connections: { title: 'RawMaterialConnections', nullAs: 'anyOf' },
    'connections.boms': { title: 'RawMaterialBomUse' },
    'connections.boms.status': { nullable: false },
    'connections.subAssemblies': { title: 'RawMaterialAssemblyUse' },
  },
  operation: new URL('./get.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ variantId: params.variantId, includeConnections: query.includeConnections }),
  // REST puts `connections` beside the material; GraphQL nests it in it (absent unless included,
  // so the optional property is omitted). No alias can lift a field one level up.
  toData: ({ rawMaterial }) => ({ material: rawMaterial, connections: rawMaterial.connections }),
});

const TEXT_FIELDS = ['productName', 'variantName', 'sku', 'unit', 'vendor', 'specifications', 'imageUrl', 'weightUnitId', 'productType', 'productCategory'] as const;
const DECIMAL_FIELDS = ['unitCost', 'unitPrice', 'weightValue', 'inventoryQuantity'] as const;

export const patchRawMaterialRoute = defineRoute({
  method: 'PATCH',
  url: '/raw-materials/:variantId',
  scope: 'write',
  operationId: 'updateRawMaterial',
  summary: 'Edit a virtual raw material',
  description: `Flat partial body: only the fields sent change; unrecognised fields are ignored; a wrong type is 400 naming
the field; \`null\` clears a nullable field (productName, isNonEssentialMaterial and inventoryQuantity cannot be null).
Numbers are ≥ 0 with at most 6 fractional digits. Virtual (VMAT-…) materials only: a platform-linked id is 400
INVALID_INPUT (read-only in API v1) before anything changes. \`inventoryQuantity\` of a virtual material is the sum of
its levels, so it is accepted only for a material stocked at exactly one location (that level is set, and recorded in
the adjustment history) or when equal to the current value; otherwise 400 (use PATCH …/inventory).
Returns the full updated row.`,
  tag: 'raw-materials',
  params: VariantIdParams,
  body: Type.Object(
    {
      productName: Type.Optional(Str('name', { minLength: 1 })),
      variantName: Type.Optional(NullableStr('name')),
      sku: Type.Optional(NullableStr('label')),
      unit: Type.Optional(NullableStr('label')),
      vendor: Type.Optional(NullableStr('label')),
      specifications: Type.Optional(NullableStr('text')),
      imageUrl: Type.Optional(NullableStr('url')),
      weightUnitId: Type.Optional(NullableStr('label')),
      productType: Type.Optional(NullableStr('label')),
      productCategory: Type.Optional(NullableStr('label')),
      unitCost: Type.Optional(NullableNumber()),
      unitPrice: Type.Optional(NullableNumber()),
      weightValue: Type.Optional(NullableNumber()),
      inventoryQuantity: Type.Optional(Type.Number({ minimum: 0 })),
      isNonEssentialMaterial: Type.Optional(Type.Boolean()),
    },
    { description: 'Unrecognised fields are ignored.' },
  ),
  dataOverrides: { material: { title: 'RawMaterial' } },
  operation: new URL('./patch.graphql', import.meta.url),
  dataField: null,
  extraProblems: [404],
  variables: ({ params, body }) => {
    const input: Record<string, unknown> = {};
    for (const f of TEXT_FIELDS) if (f in body) input[f] = body[f];
    for (const f of DECIMAL_FIELDS) if (f in body) input[f] = decimalVariable(body[f], f);
    if ('isNonEssentialMaterial' in body) input.isNonEssentialMaterial = body.isNonEssentialMaterial;
    return { variantId: params.variantId, input };
  },
});
