import { Type, type TSchema } from '@sinclair/typebox';
import { API_VERSION } from '../src/http/errors/problem.ts';
import { PLATFORM_WARNING_CODES, PLATFORM_WARNINGS, type PlatformWarning } from '../src/kernel/platform-port/platform-warnings.ts';

/** `{ data, meta: { requestId, apiVersion } }` around every 200; `meta.warnings` only when the shop's platform data is stale. */
export function envelope<T>(requestId: string, data: T, warnings: readonly PlatformWarning[] = []) {
  return { data, meta: warnings.length > 0 ? { requestId, apiVersion: API_VERSION, warnings } : { requestId, apiVersion: API_VERSION } };
}

const PlatformWarningSchema = Type.Object({
  code: Type.Union(PLATFORM_WARNING_CODES.map((code) => Type.Literal(code)), {
    description: PLATFORM_WARNING_CODES.map((code) => `\`${code}\`: ${PLATFORM_WARNINGS[code].description}.`).join(' '),
  }),
  message: Type.String({ description: 'What is stale and since when, in words.' }),
  remedy: Type.String({ description: 'What to do about it (the same for every warning of the code).' }),
  lastSyncedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When bomcore last read the store whole (a full sync or a reconciliation pass that ended); null when no sync has ended yet.' }),
  ageSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Whole seconds since `lastSyncedAt`: the age of the platform data in the answer.' }),
}, { additionalProperties: false });

export const MetaSchema = Type.Object(
  {
    requestId: Type.String(),
    apiVersion: Type.Literal(API_VERSION),
    warnings: Type.Optional(Type.Array(PlatformWarningSchema, {
      description: 'Present only when the shop is connected to a store that does not answer (or uninstalled the app): the answer serves platform levels, products and orders as last read from the store, and says how old they are. Stock moves wait in the outbox meanwhile.',
    })),
  },
  { $id: 'Meta', additionalProperties: false },
);

export function envelopeSchema(data: TSchema) {
  return Type.Object({ data, meta: Type.Ref('Meta') }, { additionalProperties: false });
}
