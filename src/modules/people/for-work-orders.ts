import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { PeopleTables } from './tables.ts';

type AssigneesTable = Selectable<PeopleTables['assignees']>;

/**
 * The assignees table under an alias, for the work-order queries that join a work order's assignee
 * (its display name, its active flag, the list's `q` filter): a typed table reference the people
 * module hands out, so work orders name none of its tables.
 */
export const assigneesAs = <A extends string>(alias: A) => sql<AssigneesTable>`assignees`.as(alias);
