import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';
import { LocationIdsQuery, scopeVariable } from '../materials/schemas.ts';
import { PREASSEMBLED_OVERRIDES } from './stock.route.ts';
import { STRING_LIMITS } from '../../../src/kernel/limits.ts';

export const getAssemblyBillPreassembledRoute = defineRoute({
  method: 'GET',
  url: '/assembly-bills/:id/preassembled',
  scope: 'read',
  operationId: 'getAssemblyBillPreassembled',
  summary: 'Pre-assembled stock of an assembly bill per location',
  description: 'Countable pre-assembled units of the assembly bill per location (stocked under its assembly id); same shape as GET /raw-materials/{variantId}/preassembled. An unknown assembly bill is 404.',
  tag: 'assembly-bills',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'Assembly id (ASM-…).' }) }, { additionalProperties: false }),
  querystring: LocationIdsQuery,
  dataOverrides: PREASSEMBLED_OVERRIDES,
  operation: new URL('./assembly-bill-preassembled.graphql', import.meta.url),
  extraProblems: [404],
  variables: ({ params, query }) => ({ assemblyId: params.id, locationIds: scopeVariable(query) }),
});
