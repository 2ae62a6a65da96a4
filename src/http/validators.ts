import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';

/**
 * Request validation with two AJV instances. Query strings and path parameters arrive as text, so
 * their values are coerced ("2" → 2, "true" → true, a single value → a one-item array). JSON
 * bodies are not: `"5"` where a number is expected is a 400 naming the field, never a silent cast.
 */
export function registerValidators(app: FastifyInstance, sharedSchemas: object[]): void {
  const base: Options = { removeAdditional: false, useDefaults: true, allErrors: true, strict: false };
  const coercing = new Ajv({ ...base, coerceTypes: 'array' });
  const exact = new Ajv({ ...base, coerceTypes: false });
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => void;
  addFormats(coercing);
  addFormats(exact);
  for (const schema of sharedSchemas) {
    coercing.addSchema(schema);
    exact.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) =>
    (httpPart === 'body' ? exact : coercing).compile(schema as object));
}
