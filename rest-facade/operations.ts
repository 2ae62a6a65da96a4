import { readFileSync } from 'node:fs';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { Kind, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';

/**
 * A stored GraphQL operation: read, parsed, validated against the schema and compiled with
 * graphql-jit once at start-up. A broken operation fails the boot.
 */
export interface StoredOperation {
  name: string;
  compiled: CompiledQuery;
  /** The parsed operation (and its fragments): what the rate limit prices a request by. */
  document: DocumentNode;
  /** Response keys (alias or field name) of the operation's root selection, in order. */
  rootFields: string[];
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
  return { name: file.pathname.split('/').pop()!, compiled, document, rootFields: rootFields(document) };
}

function rootFields(document: DocumentNode): string[] {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return (operation?.selectionSet.selections ?? []).flatMap((s) => (s.kind === Kind.FIELD ? [s.alias?.value ?? s.name.value] : []));
}
