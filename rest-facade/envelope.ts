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
