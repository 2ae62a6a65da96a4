import { listLocations, type LocationView } from '../../../src/modules/locations/locations.service.ts';
import { builder } from '../../builder.ts';

export const LocationRef = builder.objectRef<LocationView>('Location').implement({
  description: 'A platform location where stock is kept and work is done.',
  // The platform owns locations: other subgraphs of the shop declare Location with the same fields.
  shareable: true,
  fields: (t) => ({
    locationId: t.exposeString('locationId', { description: 'Bare numeric location id, e.g. "101".' }),
    locationGid: t.exposeString('locationGid', { description: 'Global id form, gid://<platform>/Location/<digits>.' }),
    name: t.exposeString('name'),
  }),
});

builder.queryField('locations', (t) =>
  t.field({
    type: [LocationRef],
    description: 'Every location of the shop (no cap), ordered by name then id.',
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => listLocations(ctx),
  }),
);
