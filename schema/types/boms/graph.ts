import DataLoader from 'dataloader';
import { DomainError } from '../../../src/kernel/domain-error.ts';
import { bomsBuildable } from '../../../src/modules/boms/buildable/buildable.service.ts';
import type { BuildableView } from '../../../src/modules/boms/buildable/buildable.service.ts';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { BomRef } from './bom.ts';
import { declaredObject } from '../common/connection.ts';
import { locationScope } from '../common/location-scope.ts';

// `Buildable` is declared beside `bomBuildable` (schema/types/boms/buildable.ts).
const BuildableRef = declaredObject<BuildableView>('Buildable');

// Per request and location scope: a BOM's figures are computed once however many selections ask.
const loadersByContext = new WeakMap<GraphQLContext, Map<string, DataLoader<string, BuildableView>>>();

function buildableLoader(ctx: GraphQLContext, scope: string[] | null): DataLoader<string, BuildableView> {
  const loaders = loadersByContext.get(ctx) ?? new Map<string, DataLoader<string, BuildableView>>();
  loadersByContext.set(ctx, loaders);
  const key = scope ? [...scope].sort().join(',') : '*';
  let loader = loaders.get(key);
  if (!loader) {
    loader = new DataLoader<string, BuildableView>(async (bomIds) => {
      const views = await bomsBuildable(ctx, bomIds, scope);
      return bomIds.map((id) => views.get(id) ?? DomainError.notFound('bom', id));
    });
    loaders.set(key, loader);
  }
  return loader;
}

builder.objectField(BomRef, 'buildable', (t) =>
  t.field({
    type: BuildableRef,
    description: 'How many units of this BOM can be built now, per location and in total (the figures of bomBuildable). '
      + 'Batched: the BOMs of a page are read together, in the statements of one BOM.',
    args: { locationIds: t.arg.idList({ required: false, description: 'Bare numeric location ids; empty or absent: every location.' }) },
    resolve: (bom, args, ctx) => buildableLoader(ctx, locationScope(args.locationIds)).load(bom.bomId),
  }),
);
