import DataLoader from 'dataloader';
import { listLocations, type LocationView } from '../../../src/modules/locations/locations.service.ts';
import { inKeyOrder, type LoaderFactory } from '../common/loader-part.ts';

export interface LocationLoaders {
  /** Platform locations by bare numeric locationId. */
  location: DataLoader<string, LocationView | null>;
  /** Every location's name by id: the request's one read of the shop's locations, shared with `location`. */
  locationNames(): Promise<Map<string, string>>;
}

export const locationLoaders: LoaderFactory<LocationLoaders> = (ctx) => {
  // The shop's locations are one read per request, shared by the location loader and the levels.
  let locations: Promise<LocationView[]> | undefined;
  const allLocations = () => (locations ??= listLocations(ctx));
  const location: DataLoader<string, LocationView | null> = new DataLoader(async (ids) => {
    const all = new Map((await allLocations()).map((l) => [l.locationId, l]));
    for (const [id, view] of all) location.prime(id, view);
    return inKeyOrder(ids, all);
  });
  return {
    loaders: { location, locationNames: async () => new Map((await allLocations()).map((l) => [l.locationId, l.name])) },
    clear: () => {
      location.clearAll();
      locations = undefined;
    },
  };
};
