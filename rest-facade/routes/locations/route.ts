import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';

const Location = Type.Object(
  {
    locationId: Type.String({ description: 'Bare numeric location id.', examples: ['101'] }),
    locationGid: Type.String({ description: 'Global id: gid://<platform>/Location/<digits>.', examples: ['gid://shopify/Location/101'] }),
    name: Type.String(),
  },
  { additionalProperties: false, title: 'Location' },
);

export const listLocationsRoute = defineRoute({
  method: 'GET',
  url: '/locations',
  scope: 'read',
  operationId: 'listLocations',
  summary: 'List locations',
  description: 'Every location of the shop (no cap), ordered by name then id, with both id spellings.',
  tag: 'locations',
  querystring: Type.Object({}, { additionalProperties: false }),
  data: Type.Object({ locations: Type.Array(Location) }, { additionalProperties: false }),
  operation: new URL('./locations.graphql', import.meta.url),
  dataField: null,
  variables: () => ({}),
});
