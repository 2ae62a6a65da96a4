import type { InputFieldMap, InputShapeFromFields, ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { DomainError, USER_ERROR_CODES, type Blocker, type DomainErrorDetails, type FieldError, type MissingRef } from '../../../src/kernel/domain-error.ts';
import { CATALOG_BLOCKERS, type CatalogBlockerCode } from '../../../src/modules/boms/recipe-vocabulary.ts';
import { TRANSITION_BLOCKERS, type BlockerCode } from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { builder, describedValues, type SchemaTypes as Types } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';

// Every mutation answers a payload (Shopify's style): `<Mutation>Payload { <result>, userErrors }`.
// An expected business failure (DomainError INVALID_INPUT, NOT_FOUND, CONFLICT) is data: the result
// is null, `userErrors` says why, and nothing of that mutation was written — so one failed field of
// a document never hides another field's committed write. Scope, limits and our own failures stay
// GraphQL errors; the mutation field is nullable, so even they null only their own field.
// docs/changelog.md states the rule; every payload type is made here, by `payloadField`.

type MutationFieldBuilder = PothosSchemaTypes.MutationFieldBuilder<Types, object>;

export const UserErrorCodeEnum = builder.enumType('UserErrorCode', {
  description: 'Why a mutation did nothing: the codes REST answers with 400, 404 and 409.',
  values: {
    INVALID_INPUT: { description: 'A field is wrong (`errors` names each one); REST 400.' },
    NOT_FOUND: { description: 'Something the mutation names does not exist in your shop (`missing` lists it); REST 404.' },
    CONFLICT: { description: 'The current state refuses it: an id taken, a stale `expectedUpdatedAt`, a blocked move (`blockers`); REST 409.' },
  } satisfies Record<(typeof USER_ERROR_CODES)[number], unknown>,
});

const FieldErrorRef = builder.objectRef<FieldError>('UserErrorField').implement({
  description: 'One field at fault, as REST\'s problem `errors` and a GraphQL error\'s `extensions.errors` name it.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The field, by the mutation\'s own names: `unitCost`, `items[1].quantity`.' }),
    message: t.exposeString('message', { description: 'What is wrong with it.' }),
  }),
});

const UserErrorBlockerCodeEnum = builder.enumType('UserErrorBlockerCode', {
  description: 'What blocks a change: a work order\'s transition or build run (the state table and its rules), or a catalogue archive.',
  values: describedValues<BlockerCode | CatalogBlockerCode>({ ...TRANSITION_BLOCKERS, ...CATALOG_BLOCKERS }),
});

const BlockerRef = builder.objectRef<Blocker>('UserErrorBlocker').implement({
  description: 'Something that blocks the change (a transition\'s OPEN_REWORK, an archive\'s USED_BY_ACTIVE_BOM).',
  fields: (t) => ({
    // The kernel's Blocker names its code as text; the services that refuse a change name only
    // codes of the blocker tables above (an unknown one would fail the response, not pass unnoticed).
    code: t.field({ type: UserErrorBlockerCodeEnum, description: 'Stable blocker code.', resolve: (b) => b.code as BlockerCode | CatalogBlockerCode }),
    message: t.exposeString('message', { description: 'What it means here.' }),
  }),
});

const MissingRefRef = builder.objectRef<MissingRef>('UserErrorMissing').implement({
  description: 'A reference that was not found.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'What it names: `build run`, `location`, `cost factor`, …' }),
    id: t.exposeString('id', { description: 'The id sent.' }),
  }),
});

interface UserError extends DomainErrorDetails { field: string[] | null }

const UserErrorRef = builder.objectRef<UserError>('UserError').implement({
  description: 'Why a mutation did nothing: the code, a message for people and the details REST\'s problem+json carries. ' +
    'Nothing of the mutation that answers it was written.',
  fields: (t) => ({
    code: t.expose('code', { type: UserErrorCodeEnum, description: 'Stable code, for programs.' }),
    message: t.exposeString('message', { description: 'The whole failure, for people (REST\'s problem `detail`).' }),
    field: t.exposeStringList('field', {
      nullable: true,
      description: 'Path from the mutation\'s arguments to the (first) field at fault: `["input", "unitCost"]`, `["items", "0", "quantity"]`; null when no one field is.',
    }),
    errors: t.field({ type: [FieldErrorRef], description: 'Every field at fault (INVALID_INPUT).', resolve: (e) => e.errors }),
    blockers: t.field({ type: [BlockerRef], description: 'What blocks the change (CONFLICT).', resolve: (e) => e.blockers }),
    missing: t.field({ type: [MissingRefRef], description: 'References not found (NOT_FOUND).', resolve: (e) => e.missing }),
  }),
});

interface Payload<T> { result: T | null; userErrors: UserError[] }

/** `createCostFactor` → `CreateCostFactorPayload`. */
const payloadTypeName = (mutation: string) => `${mutation[0]!.toUpperCase()}${mutation.slice(1)}Payload`;

/** The payload's result field: its type's name, lower camel, without a `Result` suffix (`WorkOrderWriteResult` → `workOrderWrite`). */
const resultFieldName = (typeName: string) => {
  const name = typeName.replace(/Result$/, '');
  return `${name[0]!.toLowerCase()}${name.slice(1)}`;
};

function payloadRef<T>(mutation: string, result: ObjectRef<Types, T>): ObjectRef<Types, Payload<T>> {
  const field = resultFieldName(result.name);
  return builder.objectRef<Payload<T>>(payloadTypeName(mutation)).implement({
    description: `What \`${mutation}\` did: \`${field}\`, or \`userErrors\` saying why it did nothing.`,
    fields: (t) => ({
      // The wrapper costs nothing: an operation costs what it selects inside the result, so REST's
      // stored mutations charge the rate limit what they did before payloads.
      [field]: t.field({
        type: result, nullable: true, complexity: { field: 0, multiplier: 1 },
        description: 'The result; null when the mutation did nothing (see `userErrors`).',
        // Pothos's resolver type cannot be checked against an open T; the value is the ref's shape or null.
        resolve: (p: Payload<T>) => p.result as never,
      }),
      userErrors: t.field({
        type: [UserErrorRef], complexity: { field: 0, multiplier: 0 },
        description: 'Why the mutation did nothing; empty when it succeeded.',
        resolve: (p: Payload<T>) => p.userErrors,
      }),
    }),
  });
}

/**
 * Path of a field as the domain names it (`items[0].quantity`) from the mutation's arguments: as is
 * when it starts with an argument's name, else inside the `input` argument (whose fields the rules
 * name bare, as REST's body does).
 */
function argumentPath(field: string | undefined, info: GraphQLResolveInfo): string[] | null {
  if (!field) return null;
  const segments = field.split(/\.|\[(\d+)\]/).filter((s): s is string => Boolean(s));
  const args = info.parentType.getFields()[info.fieldName]?.args.map((a) => a.name) ?? [];
  return args.includes(segments[0]!) || !args.includes('input') ? segments : ['input', ...segments];
}

/** The payload of an error: a user error when it is an expected business failure, else thrown on. */
function failed(error: unknown, info: GraphQLResolveInfo): Payload<never> {
  const details = error instanceof DomainError ? error.details : null;
  if (!details) throw error;
  return { result: null, userErrors: [{ ...details, field: argumentPath(details.errors[0]?.field, info) }] };
}

/**
 * A mutation field answering `<Mutation>Payload` (nullable) around what `resolve` returns; needs
 * the `write` scope. `mutation` is the field's name (the payload type is named after it).
 */
export function payloadField<Args extends InputFieldMap, T>(t: MutationFieldBuilder, mutation: string, options: {
  type: ObjectRef<Types, T>;
  description: string;
  args: Args;
  resolve: (root: object, args: InputShapeFromFields<Args>, ctx: GraphQLContext, info: GraphQLResolveInfo) => T | Promise<T>;
}) {
  return t.field({
    type: payloadRef(mutation, options.type),
    nullable: true,
    description: options.description,
    authScopes: { write: true },
    args: options.args,
    resolve: async (root, args, ctx, info): Promise<Payload<T>> => {
      try {
        return { result: await options.resolve(root, args as InputShapeFromFields<Args>, ctx, info), userErrors: [] };
      } catch (error) {
        return failed(error, info);
      }
    },
  });
}
