import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import { STRING_LIMITS, textLength } from '../src/kernel/limits.ts';

/**
 * The Federation 2 entities of this subgraph and the @key field of each: schema/federation.ts
 * declares them from this table, and every `_entities` representation is checked against it before
 * execution (schema/input-limits.ts), so a representation the resolver cannot use is INVALID_INPUT
 * naming `representations[i]`, not an exception inside the federation resolver (INTERNAL).
 */
export const ENTITY_KEYS = {
  RawMaterial: 'variantId',
  Bom: 'bomId',
  AssemblyBill: 'assemblyId',
  WorkOrder: 'workOrderId',
  Location: 'locationId',
  Order: 'orderId',
} as const;

export type EntityName = keyof typeof ENTITY_KEYS;

const ENTITY_NAMES = Object.keys(ENTITY_KEYS).sort().join(', ');

/** A client's string as a message quotes it: JSON-escaped, at most 40 characters, the rest summarised. */
export function quoteClientText(text: string): string {
  const chars = [...text];
  return chars.length <= 40 ? JSON.stringify(text) : `${JSON.stringify(chars.slice(0, 40).join(''))}… (${chars.length} characters)`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What is wrong with one `_entities` representation, or null: it must be an object whose
 * `__typename` names an entity of ENTITY_KEYS, with that entity's key field as a string (an ID
 * key also takes an integer, as GraphQL's ID does) of at most STRING_LIMITS.id characters.
 */
export function representationProblem(schema: GraphQLSchema, value: unknown): string | null {
  if (!isRecord(value)) return `must be an object with __typename and the entity's key field (entities: ${ENTITY_NAMES})`;
  const typename = value.__typename;
  if (typeof typename !== 'string') return `needs __typename, the name of an entity: ${ENTITY_NAMES}`;
  if (!Object.hasOwn(ENTITY_KEYS, typename)) return `__typename ${quoteClientText(typename)} is not an entity of this service; entities: ${ENTITY_NAMES}`;
  const keyField = ENTITY_KEYS[typename as EntityName];
  const key = value[keyField];
  const type = schema.getType(typename);
  const keyType = isObjectType(type) ? getNamedType(type.getFields()[keyField]?.type)?.name : undefined;
  const acceptsInteger = keyType === 'ID';
  const expected = acceptsInteger ? 'a string or an integer' : 'a string';
  if (key === undefined || key === null) return `a ${typename} representation needs its key ${keyField} (${expected})`;
  if (typeof key === 'number' && acceptsInteger && Number.isSafeInteger(key)) return null;
  if (typeof key !== 'string') return `${keyField} must be ${expected}`;
  if (textLength(key) > STRING_LIMITS.id) return `${keyField} must be at most ${STRING_LIMITS.id} characters, got ${textLength(key)}`;
  return null;
}
