import { expect } from 'vitest';
import type { QueryStats } from '../../src/db/query-stats.ts';
import type { TestApp } from './test-app.ts';

// Reading mutation payloads in tests (schema/types/common/payload.ts): every mutation answers
// `{ <result>, userErrors }`; a business failure is a user error, scope and limits stay errors.

/** The user-error selection the tests make: every detail. */
export const USER_ERRORS = 'userErrors { code message field errors { field message } blockers { code message } missing { kind id } }';

export interface Failure {
  /** `userError`: in the payload, nothing written; `error`: a GraphQL error (scope, limits, a refused document). */
  kind: 'userError' | 'error';
  code: string;
  message: string;
  field?: string[] | null;
  errors?: { field: string; message: string }[];
  blockers?: { code: string; message: string }[];
  missing?: { kind: string; id: string }[];
}

type Payload = Record<string, unknown> & { userErrors: Omit<Failure, 'kind'>[] };

export const isPayload = (value: unknown): value is Payload =>
  typeof value === 'object' && value !== null && Array.isArray((value as { userErrors?: unknown }).userErrors);

/** The payload's one result field (besides `userErrors` and `__typename`). */
export function resultOf(payload: Payload): any {
  const keys = Object.keys(payload).filter((k) => k !== 'userErrors' && k !== '__typename');
  expect(keys, 'a payload selection names one result field').toHaveLength(1);
  return payload[keys[0]!];
}

/**
 * What the mutation under `key` of a /graphql answer did: its result, or its one failure. Checks the
 * payload rule on the way: a user error comes alone with a null result, and NOT_FOUND or CONFLICT
 * are never GraphQL errors of a mutation.
 */
export function outcome(body: { data?: Record<string, unknown> | null; errors?: any[] }, key: string): { result: any; failure: Failure | null } {
  const payload = body.data?.[key];
  if (isPayload(payload) && payload.userErrors.length > 0) {
    expect(payload.userErrors, 'one failure, one user error').toHaveLength(1);
    expect(resultOf(payload), 'a failed mutation has no result').toBeNull();
    return { result: null, failure: { kind: 'userError', ...payload.userErrors[0]! } };
  }
  const error = body.errors?.find((e) => e.path === undefined || e.path[0] === key);
  if (error) {
    expect(['NOT_FOUND', 'CONFLICT'], `${key}: a business failure is a user error, not ${JSON.stringify(error)}`).not.toContain(error.extensions?.code);
    const { code, errors, blockers, missing } = error.extensions ?? {};
    return { result: isPayload(payload) ? resultOf(payload) : null, failure: { kind: 'error', code, message: error.message, errors, blockers, missing } };
  }
  expect(isPayload(payload), `${key} answered a payload: ${JSON.stringify(body)}`).toBe(true);
  return { result: resultOf(payload as Payload), failure: null };
}

/** `outcome` of a document with one mutation field. */
export const only = (body: { data?: Record<string, unknown> | null; errors?: any[] }) => outcome(body, Object.keys(body.data ?? {})[0] ?? '');

/**
 * A file's GraphQL caller: sends an operation with the file's key (read when called, after
 * `beforeAll` made it) or another one, and returns the body; with `stats`, also records the SQL
 * statements it sent (X-Query-Count).
 */
export function graphqlCaller(t: () => TestApp, defaultKey: () => string) {
  return async (query: string, variables: Record<string, unknown> = {}, k = defaultKey(), stats?: QueryStats): Promise<any> => {
    const res = await t().graphql(k, query, variables);
    if (stats) stats.count = res.statements;
    return res.body;
  };
}
