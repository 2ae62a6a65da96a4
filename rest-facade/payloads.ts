import {
  getNamedType, GraphQLError, isObjectType, Kind, type DocumentNode, type ExecutionResult, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { DomainError, type DomainErrorDetails } from '../src/kernel/domain-error.ts';

// Every mutation answers a payload `{ <result>, userErrors }` (schema/types/common/payload.ts): an
// expected failure is data there, not a GraphQL error. REST answers such a failure as it always
// did, through one generic step: a stored mutation selects its result and every detail of
// `userErrors`, and a user error is turned back into the DomainError it was made from — same code,
// message and errors/blockers/missing — which the facade maps through the one code→status table.

/** A root field of a stored operation answering a payload: its response key and the key of its result inside. */
export interface PayloadField { key: string; result: string }

/** What a stored mutation selects of `userErrors`: all a problem+json needs (its `detail`, `errors`, `blockers`, `missing`). */
const USER_ERROR_SELECTION: Record<keyof DomainErrorDetails, readonly string[]> = {
  code: [], message: [], errors: ['field', 'message'], blockers: ['code', 'message'], missing: ['kind', 'id'],
};
const USER_ERRORS_TEXT = 'userErrors { code message errors { field message } blockers { code message } missing { kind id } }';

const fieldKeys = (set: SelectionSetNode | undefined): Map<string, SelectionSetNode | undefined> =>
  new Map((set?.selections ?? []).flatMap((s) => (s.kind === Kind.FIELD ? [[s.alias?.value ?? s.name.value, s.selectionSet] as const] : [])));

function selectsEveryDetail(set: SelectionSetNode | undefined): boolean {
  const keys = fieldKeys(set);
  return Object.entries(USER_ERROR_SELECTION).every(([name, inner]) =>
    keys.has(name) && inner.every((leaf) => fieldKeys(keys.get(name)).has(leaf)));
}

/**
 * The payload fields of a stored mutation, checked at start-up: each selects exactly one result
 * field and `userErrors` with every detail, so no failure can pass unseen. A query has none.
 */
export function payloadFieldsOf(schema: GraphQLSchema, document: DocumentNode, name: string): PayloadField[] {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  const mutation = schema.getMutationType();
  if (operation?.operation !== 'mutation' || !mutation) return [];
  return operation.selectionSet.selections.flatMap((selection) => {
    if (selection.kind !== Kind.FIELD) return [];
    const type = getNamedType(mutation.getFields()[selection.name.value]?.type);
    if (!isObjectType(type) || !type.getFields().userErrors) return [];
    const key = selection.alias?.value ?? selection.name.value;
    const keys = fieldKeys(selection.selectionSet);
    const results = [...keys.keys()].filter((k) => k !== 'userErrors' && k !== '__typename');
    if (results.length !== 1 || !selectsEveryDetail(keys.get('userErrors'))) {
      throw new Error(`stored operation ${name}: ${key} must select its one result field and ${USER_ERRORS_TEXT}`);
    }
    return [{ key, result: results[0]! }];
  });
}

/**
 * The result as REST reads it: each payload replaced by its result; a user error (there is at most
 * one, and nothing of its mutation was written) becomes the GraphQL error of its DomainError.
 */
export function withUserErrorsAsErrors(result: ExecutionResult, payloads: readonly PayloadField[]): ExecutionResult {
  if (!result.data) return result;
  const data: Record<string, unknown> = { ...result.data };
  for (const { key, result: inner } of payloads) {
    const payload = data[key] as (Record<string, unknown> & { userErrors: DomainErrorDetails[] }) | null | undefined;
    if (!payload) continue;
    const [failure] = payload.userErrors;
    if (failure) {
      const error = new GraphQLError(failure.message, { path: [key], originalError: DomainError.fromDetails(failure) });
      return { ...result, data: null, errors: [error, ...(result.errors ?? [])] };
    }
    data[key] = payload[inner];
  }
  return { ...result, data };
}
