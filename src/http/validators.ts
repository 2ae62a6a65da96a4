import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchema, FastifySchemaValidationError } from 'fastify';
import { unstorableText } from '../limits.ts';

interface StringProblem { instancePath: string; message: string }

/**
 * The first string anywhere in `value` (keys included) that PostgreSQL text cannot store: NUL or a
 * lone surrogate. Its JSON pointer names the field the way AJV would (`/updates/0/note`).
 */
export function findUnstorableString(value: unknown, path = ''): StringProblem | null {
  if (typeof value === 'string') {
    const message = unstorableText(value);
    return message ? { instancePath: path, message } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableString(value[i], `${path}/${i}`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const keyProblem = unstorableText(key);
      if (keyProblem) return { instancePath: path, message: `has a member name that ${keyProblem}` };
      const found = findUnstorableString((value as Record<string, unknown>)[key], `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      if (found) return found;
    }
  }
  return null;
}

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/** Wraps a compiled schema: text the database cannot store is refused first, as a field error of the part (query, params, body). */
function refusingUnstorable(validate: Validate): Validate {
  const wrapped: Validate = (data: unknown) => {
    const problem = findUnstorableString(data);
    if (problem) {
      wrapped.errors = [{ instancePath: problem.instancePath, message: problem.message, params: {}, keyword: 'storable', schemaPath: '#' }];
      return false;
    }
    const ok = validate(data);
    wrapped.errors = validate.errors ?? null;
    return ok;
  };
  return wrapped;
}

/**
 * Request validation with two AJV instances, behind one check that no string of the query, the
 * path or the body (at any depth) holds NUL or a lone surrogate: such a value is 400 naming its
 * field, never an error from the database driver. Query strings and path parameters arrive as text, so
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
  app.setValidatorCompiler(({ schema, httpPart, url }: { schema: FastifySchema; httpPart?: string; url?: string }) => {
    const validate = (httpPart === 'body' ? exact : coercing).compile(schema as object) as Validate;
    // /graphql checks its arguments itself (schema/input-limits.ts), naming the argument rather than the variable.
    return url === '/graphql' ? validate : refusingUnstorable(validate);
  });
}
