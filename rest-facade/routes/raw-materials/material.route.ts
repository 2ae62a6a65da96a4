import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { EnumOf } from '../../graphql-enums.ts';
import { decimalVariable, MaterialSchema, NullableNumber, NullableStr, Str, VariantIdParams } from './schemas.ts';

const Connection = (idField: 'bomId' | 'assemblyId', bom: boolean) => Type.Object(
  {
    [idField]: Type.String({ description: bom ? 'The BOM (BOM-…).' : 'The assembly bill (ASM-…).' }),
    name: Type.String(),
    ...(bom ? { status: EnumOf('BomStatus') } : {}),
    quantity: Type.Number({ description: 'Quantity of this material per unit of the bill (0 where a location rule removes it or replaces it by another node).' }),
    wastePercentage: Type.Number(),
    source: EnumOf('MaterialUsageSource', {
      description: '`recipe`: a line of the bill\'s base recipe (locationId null: every location without a rule changing it). `locationRule`: an override of the bill\'s rule at locationId.',
    }),
    action: EnumOf('LocationRuleAction', { nullable: true, description: 'The override; null for recipe lines.' }),
    locationId: Type.Union([Type.String(), Type.Null()], { description: 'Location context: null for the base recipe, the rule\'s location otherwise.' }),
    locationName: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false, title: bom ? 'RawMaterialBomUse' : 'RawMaterialAssemblyUse' },
);

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
  data: Type.Object(
    {
      material: MaterialSchema,
      connections: Type.Optional(Type.Object(
        { boms: Type.Array(Connection('bomId', true)), subAssemblies: Type.Array(Connection('assemblyId', false)) },
        { additionalProperties: false, title: 'RawMaterialConnections' },
      )),
    },
    { additionalProperties: false },
  ),
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
  data: Type.Object({ material: MaterialSchema }, { additionalProperties: false }),
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
