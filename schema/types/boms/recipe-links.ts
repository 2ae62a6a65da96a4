import { builder } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { AssemblyBillRef } from './bom.ts';
import { RawMaterialLineRef, SubAssemblyLineRef } from './recipe-lines.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';

// Recipe lines lead to what they name. Both links go through the request's loaders: every line of
// a tree asks in the same tick, and loading one bill caches every assembly bill its recipe reaches,
// so following a tree of any depth or width costs the same few statements.

builder.objectField(SubAssemblyLineRef, 'assembly', (t) =>
  t.field({
    type: AssemblyBillRef,
    nullable: true,
    description: 'The assembly bill this line names, with its own recipe and unit cost (null only if the bill no longer exists).',
    resolve: (line, _args, ctx) => loadersOf(ctx).assemblyBillOf(line.nodeId),
  }),
);

builder.objectField(RawMaterialLineRef, 'material', (t) =>
  t.field({
    type: RawMaterialRef,
    nullable: true,
    description: 'The raw material this line names, with every catalogue field and its stock (`levels`); null only if the material no longer exists.',
    resolve: (line, _args, ctx) => loadersOf(ctx).material.load(line.nodeId),
  }),
);
