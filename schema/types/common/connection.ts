import type { ArgBuilder, ObjectRef, SchemaTypes } from '@pothos/core';
import { builder } from '../../builder.ts';
import type { Connection, Edge, PageInfo } from '../../../src/db/keyset.ts';

/** The schema builder's Pothos types (for helpers that take an argument builder or a ref). */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

/** An object type another type file declares (and does not export), by its GraphQL name. */
export function declaredObject<T>(name: string): ObjectRef<Types, T> {
  return name as unknown as ObjectRef<Types, T>;
}

export const PageInfoRef = builder.objectRef<PageInfo>('PageInfo').implement({
  description: 'Where a connection page lies in its list (Relay cursor connections).',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'More rows follow the page\'s last row.' }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', { description: 'Rows precede the page\'s first row.' }),
    startCursor: t.exposeString('startCursor', { nullable: true, description: 'Cursor of the first edge; null on an empty page.' }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Cursor of the last edge; null on an empty page.' }),
  }),
});

/** The `<Name>Edge` and `<Name>Connection` types of a node type. */
export function connectionType<T>(name: string, node: ObjectRef<Types, T>, what: string): ObjectRef<Types, Connection<T>> {
  const edge = builder.objectRef<Edge<T>>(`${name}Edge`).implement({
    description: `One ${what} of a page, with its cursor.`,
    fields: (t) => ({
      cursor: t.exposeString('cursor', { description: 'Opaque position of this row in the list and sort it was read with (pass it to after or before).' }),
      node: t.field({ type: node, description: `The ${what}.`, resolve: (e) => e.node as never }),
    }),
  });
  return builder.objectRef<Connection<T>>(`${name}Connection`).implement({
    description: `A page of ${what}s and where it lies in the list.`,
    fields: (t) => ({
      edges: t.field({ type: [edge], description: 'The page\'s rows in list order.', resolve: (c) => c.edges }),
      nodes: t.field({ type: [node], description: 'The page\'s rows without their cursors.', resolve: (c) => c.edges.map((e) => e.node) as never }),
      pageInfo: t.field({ type: PageInfoRef, description: 'Cursors of the page\'s ends and whether rows lie beyond them.', resolve: (c) => c.pageInfo }),
      totalCount: t.exposeInt('totalCount', { description: 'Rows matching the filters, over every page.' }),
    }),
  });
}

/** The Relay page arguments; `first`/`last` are checked against the list's page-size limit. */
export function connectionArgs(arg: ArgBuilder<Types>, max: number) {
  return {
    first: arg.int({ required: false, description: `Rows from the start of the window (after the cursor \`after\`); 1–${max}; 50 when neither first nor last is given.` }),
    after: arg.string({ required: false, description: 'Start after this cursor (a cursor read with the same sort).' }),
    last: arg.int({ required: false, description: `Rows from the end of the window (before the cursor \`before\`); 1–${max}; not with first.` }),
    before: arg.string({ required: false, description: 'End before this cursor (a cursor read with the same sort).' }),
  };
}
