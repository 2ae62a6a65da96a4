import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchema, FastifySchemaValidationError } from 'fastify';
import { unstorableText } from '../../kernel/limits.ts';
import { restoreExactNumbers } from '../../kernel/numbers/json-numbers.ts';
import { listParameters, listValidationSchema, splitListParameters } from './query-lists.ts';

interface StringProblem { instancePath: string; message: string }

/** A JSON pointer segment (`a/b` → `a~1b`), as AJV writes instance paths. */
const pointerSegment = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The first string anywhere in `value` (keys included) that PostgreSQL text cannot store: NUL or a
 * lone surrogate. Its JSON pointer names the field the way AJV would (`/updates/0/note`). Walked
 * with an explicit stack, in document order: no depth of nesting can overflow the call stack
 * (bodies are bounded at MAX_JSON_DEPTH anyway, src/http/requests/json-body.ts).
 */
export function findUnstorableString(value: unknown, path = ''): StringProblem | null {
  const stack: { value: unknown; path: string }[] = [{ value, path }];
  while (stack.length > 0) {
    const { value: current, path: at } = stack.pop()!;
    if (typeof current === 'string') {
      const message = unstorableText(current);
      if (message) return { instancePath: at, message };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${at}/${i}` });
    } else if (typeof current === 'object' && current !== null) {
      const keys = Object.keys(current);
      for (const key of keys) {
        const keyProblem = unstorableText(key);
        if (keyProblem) return { instancePath: at, message: `has a member name that ${keyProblem}` };
      }
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: (current as Record<string, unknown>)[keys[i]!], path: `${at}/${pointerSegment(keys[i]!)}` });
      }
    }
  }
  return null;
}

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/** Fields (values of a list counted apiece) whose errors a refusal names; and the errors kept for them. */
export const MAX_REPORTED_FIELDS = 20;
const MAX_REPORTED_ERRORS = 200;

/**
 * The errors of the first MAX_REPORTED_FIELDS fields only. AJV with allErrors reports every failing
 * value: 5,000 `status` values outside an enum were 5,000 anyOf errors and 20,000 branch errors,
 * and turning them into messages (src/http/errors/error-handler.ts pairs each anyOf with its branches)
 * took minutes of CPU for one GET. A field is the first two segments of the error's path
 * (`/status/17`, `/updates/3`), so an anyOf keeps its branches.
 */
export function firstFieldsErrors<E extends { instancePath: string }>(errors: E[] | null | undefined): E[] | null {
  if (!errors || errors.length <= MAX_REPORTED_FIELDS) return errors ?? null;
  const fields = new Set<string>();
  const kept: E[] = [];
  for (const error of errors) {
    const field = error.instancePath.split('/').slice(0, 3).join('/');
    if (!fields.has(field)) {
      if (fields.size >= MAX_REPORTED_FIELDS) continue;
      fields.add(field);
    }
    kept.push(error);
    if (kept.length >= MAX_REPORTED_ERRORS) break;
  }
  return kept;
}

/** A validator whose errors are cut to the first fields (firstFieldsErrors), whatever it wraps. */
function boundedErrors(validate: Validate): Validate {
  const wrapped: Validate = (data: unknown) => {
    const ok = validate(data);
    wrapped.errors = firstFieldsErrors(validate.errors);
    return ok;
  };
  return wrapped;
}

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
 * A body its schema accepted gets back the exact text of the numbers a double did not hold
 * (src/http/requests/json-body.ts): the decimal readers after validation take them digit for digit.
 */
function restoringExactNumbers(validate: Validate): Validate {
  const wrapped: Validate = (data: unknown) => {
    const ok = validate(data);
    wrapped.errors = validate.errors ?? null;
    if (ok) restoreExactNumbers(data);
    return ok;
  };
  return wrapped;
}

/** Splits the values of the query's list parameters before `validate` runs; malformed quoting is refused naming the parameter. */
function splittingLists(names: readonly string[], validate: Validate): Validate {
  if (names.length === 0) return validate;
  const wrapped: Validate = (data: unknown) => {
    const problem = splitListParameters(data, names);
    if (problem) {
      wrapped.errors = [{ instancePath: `/${pointerSegment(problem.name)}`, message: problem.message, params: {}, keyword: 'listSyntax', schemaPath: '#' }];
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
 * their values are coerced ("2" → 2, "true" → true, a single value → a one-item array), and the
 * values of a list parameter are split at commas (src/http/requests/query-lists.ts). JSON
 * bodies are not: `"5"` where a number is expected is a 400 naming the field, never a silent cast.
 * A body number a double does not hold is judged as the double next to it towards zero, then becomes
 * its exact text (restoringExactNumbers).
 */
export function registerValidators(app: FastifyInstance, sharedSchemas: object[]): void {
  // verbose: errors carry their schema, so a message can state a whole range (src/http/errors/error-handler.ts).
  const base: Options = { removeAdditional: false, useDefaults: true, allErrors: true, strict: false, verbose: true };
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
  const compile = ({ schema, httpPart, url }: { schema: FastifySchema; httpPart?: string; url?: string }): Validate => {
    const ajv = httpPart === 'body' ? exact : coercing;
    // /graphql checks its arguments itself (schema/input-limits.ts), naming the argument rather than the variable.
    if (url === '/graphql') return httpPart === 'body' ? restoringExactNumbers(ajv.compile(schema as object) as Validate) : ajv.compile(schema as object) as Validate;
    if (httpPart === 'body') return restoringExactNumbers(refusingUnstorable(ajv.compile(schema as object) as Validate));
    if (httpPart !== 'querystring') return refusingUnstorable(ajv.compile(schema as object) as Validate);
    // List parameters: repeated and comma-separated values alike, each item checked (src/http/requests/query-lists.ts).
    return splittingLists(listParameters(schema), refusingUnstorable(ajv.compile(listValidationSchema(schema as Record<string, unknown>)) as Validate));
  };
  app.setValidatorCompiler((route: { schema: FastifySchema; httpPart?: string; url?: string }) => boundedErrors(compile(route)));
}
