import { Type, type TSchema } from '@sinclair/typebox';
import { API_VERSION } from '../src/http/problem.ts';

/** `{ data, meta: { requestId, apiVersion } }` around every 200. */
export function envelope<T>(requestId: string, data: T) {
  return { data, meta: { requestId, apiVersion: API_VERSION } };
}

export const MetaSchema = Type.Object(
  { requestId: Type.String(), apiVersion: Type.Literal(API_VERSION) },
  { $id: 'Meta', additionalProperties: false },
);

export function envelopeSchema(data: TSchema) {
  return Type.Object({ data, meta: Type.Ref('Meta') }, { additionalProperties: false });
}

/** A decimal string (exact in the service) written as a JSON number in REST responses. */
export function decimalToNumber(value: string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/**
 * Turns the GraphQL `Decimal` strings found under the given keys (at any depth) into JSON numbers,
 * for routes whose payload nests decimals in lists.
 */
export function decimalsToNumbers<T>(value: T, keys: ReadonlySet<string>): T {
  if (Array.isArray(value)) return value.map((v) => decimalsToNumbers(v, keys)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [
    k, keys.has(k) && typeof v === 'string' ? Number(v) : decimalsToNumbers(v, keys),
  ])) as T;
}
