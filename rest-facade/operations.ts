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

export function loadOperation(schema: GraphQLSchema, file: URL): StoredOperation {
  const source = readFileSync(file, 'utf8');
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
