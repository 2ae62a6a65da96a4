import { readFileSync } from 'node:fs';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { parse, validate, type GraphQLSchema } from 'graphql';

/**
 * A stored GraphQL operation: read, parsed, validated against the schema and compiled with
 * graphql-jit once at start-up. A broken operation fails the boot.
 */
export interface StoredOperation {
  name: string;
  compiled: CompiledQuery;
}

/** `files`: the operation, then any files of fragments it spreads (shared selections). */
export function loadOperation(schema: GraphQLSchema, files: URL | readonly URL[]): StoredOperation {
  const list = Array.isArray(files) ? files : [files as URL];
  const file = list[0]!;
  const source = list.map((f) => readFileSync(f, 'utf8')).join('\n');
  const document = parse(source);
  const problems = validate(schema, document);
  if (problems.length > 0) {
    throw new Error(`stored operation ${file.pathname} is invalid: ${problems.map((p) => p.message).join('; ')}`);
  }
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) {
    throw new Error(`stored operation ${file.pathname} does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  }
  return { name: file.pathname.split('/').pop()!, compiled };
}
