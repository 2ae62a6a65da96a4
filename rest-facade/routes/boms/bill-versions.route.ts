import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { PAGE_LIMITS, STRING_LIMITS } from '../../../src/kernel/limits.ts';
import { EnumOf, withArgDefaults } from '../../graphql-enums.ts';
import { INT32_MAX, MIN0, MIN1 } from '../../schema-helpers.ts';

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
  querystring: withArgDefaults('billVersions', Type.Object({
    limit: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_LIMITS.billVersions }),
    offset: Type.Integer({ format: 'int32', minimum: 0, maximum: INT32_MAX }),
  }, { additionalProperties: false })),
  extraProblems: [404],
  dataOverrides: {
    versions: { title: 'BillVersion' }, 'versions.version': MIN1,
    // Only ready versions are listed; REST writes savedAt without a format.
    'versions.state': { anyOf: undefined, const: 'ready', type: 'string' }, 'versions.savedAt': { format: undefined },
    'versions.changes.recipeFields': MIN0, 'versions.changes.materials': MIN0, 'versions.changes.locationRules': MIN0, 'versions.changes.overrides': MIN0,
    total: MIN0, pending: MIN0,
  },
  operation: new URL('./bill-versions.graphql', import.meta.url),
  variables: ({ params, query }) => ({ ownerType: params.ownerType, ownerId: params.ownerId, limit: query.limit, offset: query.offset }),
});
