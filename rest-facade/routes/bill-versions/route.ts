import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { PAGE_LIMITS, STRING_LIMITS } from '../../../src/limits.ts';
import { EnumOf } from '../../graphql-enums.ts';
import { INT32_MAX, named } from '../../schema-helpers.ts';

const nullableString = (description: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const obj = (properties: Parameters<typeof Type.Object>[0]) => Type.Object(properties, { additionalProperties: false });

const BillVersion = named('BillVersion', obj({
  version: Type.Integer({ minimum: 1 }),
  state: Type.Literal('ready', { description: 'Only ready versions are listed.' }),
  savedAt: Type.String({ description: 'ISO 8601 timestamp with milliseconds (UTC).' }),
  savedBy: nullableString('Who saved it.'),
  trigger: Type.String({ description: 'What triggered the save (e.g. manual).' }),
  contentHash: nullableString('Hash of the saved content (sha256:…).'),
  changes: obj({
    recipeFields: Type.Integer({ minimum: 0 }), materials: Type.Integer({ minimum: 0 }),
    locationRules: Type.Integer({ minimum: 0 }), overrides: Type.Integer({ minimum: 0 }),
  }),
}));

const description = `Saved versions of a BOM (\`bom\`) or assembly bill (\`sub_assembly\`), newest first (highest version).
Each row carries the change summary frozen when it was saved (counts of recipe fields, materials, location rules and
overrides changed against the previous version), the content hash, the trigger and who saved it.
Only \`ready\` versions are listed; \`pending\` counts versions allocated but not yet readable, so a page can hold fewer rows
than were just saved. \`total\` = ready versions; \`hasMore\` = offset + rows < total. \`limit\` 1–${PAGE_LIMITS.billVersions} (default 10), \`offset\` ≥ 0
(default 0). An ownerType other than bom | sub_assembly is 400; an unknown owner (or another shop's) is 404.`;

export const billVersionsRoute = defineRoute({
  method: 'GET',
  url: '/bill-versions/:ownerType/:ownerId',
  scope: 'read',
  operationId: 'listBillVersions',
  summary: 'List saved versions of a bill',
  description,
  tag: 'bill-versions',
  params: Type.Object({
    ownerType: EnumOf('BillOwnerType'),
    ownerId: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id }),
  }, { additionalProperties: false }),
  querystring: Type.Object({
    limit: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_LIMITS.billVersions, default: 10 }),
    offset: Type.Integer({ format: 'int32', minimum: 0, maximum: INT32_MAX, default: 0 }),
  }, { additionalProperties: false }),
  data: obj({
    ownerType: EnumOf('BillOwnerType'), ownerId: Type.String(),
    versions: Type.Array(BillVersion),
    total: Type.Integer({ minimum: 0, description: 'Ready versions.' }), limit: Type.Integer(), offset: Type.Integer(),
    hasMore: Type.Boolean(), pending: Type.Integer({ minimum: 0 }),
  }),
  extraProblems: [404],
  operation: new URL('./bill-versions.graphql', import.meta.url),
  variables: ({ params, query }) => ({ ownerType: params.ownerType, ownerId: params.ownerId, limit: query.limit, offset: query.offset }),
});
