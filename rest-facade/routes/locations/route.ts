import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';

export const listLocationsRoute = defineRoute({
  method: 'GET',
  url: '/locations',
  scope: 'read',
  operationId: 'listLocations',
  summary: 'List locations',
  description: 'Every location of the shop (no cap), ordered by name then id, with both id spellings.',
  tag: 'locations',
  querystring: Type.Object({}, { additionalProperties: false }),
  operation: new URL('./locations.graphql', import.meta.url),
  dataField: null,
  dataOverrides: {
    'locations': { title: 'Location' },
    'locations.locationId': { examples: ['101'] },
    'locations.locationGid': { examples: ['gid://shopify/Location/101'] },
  },
  variables: () => ({}),
});
