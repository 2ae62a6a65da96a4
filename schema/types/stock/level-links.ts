import type { InventoryLevelView } from '../../../src/modules/materials/inventory.service.ts';
import { DomainError } from '../../../src/kernel/domain-error.ts';
import { builder } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { LocationRef } from '../locations/location.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';

const RawMaterialLevelRef = builder.objectRef<InventoryLevelView>('RawMaterialLevel').implement({
  description: 'Stock of a material at one location (the figures of `rawMaterialInventory`).',
  fields: (t) => ({
    locationId: t.exposeString('locationId', { description: 'Bare numeric location id.' }),
    locationName: t.exposeString('locationName', { nullable: true, description: 'The platform location\'s name (platform-linked materials; null for virtual levels, read it through `location`).' }),
    available: t.expose('available', { type: 'Decimal', description: 'Units available at the location now: the live platform level, or the service\'s own level for a virtual material.' }),
    location: t.field({
      type: LocationRef,
      nullable: true,
      description: 'The platform location (null when the platform no longer lists it).',
      resolve: (level, _args, ctx) => loadersOf(ctx).location.load(level.locationId),
    }),
  }),
});

/** Bare numeric location ids, as every other location scope of the API takes them. */
function scopeArg(locationIds: readonly (string | number)[] | null | undefined): string[] | null {
  const ids = (locationIds ?? []).map(String).filter((id) => id !== '');
  const bad = ids.find((id) => !/^\d+$/.test(id));
  if (bad !== undefined) throw DomainError.invalid('locationIds', `"${bad}" is not a bare numeric location id`);
  return ids.length === 0 ? null : ids;
}

builder.objectField(RawMaterialRef, 'levels', (t) =>
  t.field({
    type: [RawMaterialLevelRef],
    description: 'Per-location stock of the material, ordered by location id: live platform levels for platform-linked materials, the service\'s own levels for virtual ones. Batched: a list of materials costs the same statements as one.',
    args: {
      locationIds: t.arg.idList({ required: false, description: 'Bare numeric location ids; empty or absent: every location.' }),
    },
    resolve: async (material, args, ctx) => (await loadersOf(ctx).inventory(scopeArg(args.locationIds)).load(material)).levels,
  }),
);
