import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { Kind, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { readOperationDocument } from './operation-document.ts';
import { payloadFieldsOf, withUserErrorsAsErrors, type PayloadField } from './payloads.ts';

/**
 * A stored GraphQL operation: read, parsed, validated against the schema and compiled with
 * graphql-jit once at start-up. A broken operation fails the boot.
 */
export interface StoredOperation {
  name: string;
  /**
   * Runs the operation. A mutation's payload is unwrapped (rest-facade/payloads.ts): its result
   * stands under the root key, and a user error comes back as the GraphQL error of its DomainError,
   * which the facade answers as problem+json exactly as when mutations threw.
   */
  compiled: CompiledQuery;
  /** The parsed operation (and its fragments): what the rate limit prices a request by. */
  document: DocumentNode;
  /** Response keys (alias or field name) of the operation's root selection, in order. */
  rootFields: string[];
}

/** `files`: the operation, then any files of fragments it spreads (shared selections). */
export function loadOperation(schema: GraphQLSchema, files: URL | readonly URL[]): StoredOperation {
  const { file, document } = readOperationDocument(files);
  const problems = validate(schema, document);
  if (problems.length > 0) {
    throw new Error(`stored operation ${file.pathname} is invalid: ${problems.map((p) => p.message).join('; ')}`);
  }
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) {
    throw new Error(`stored operation ${file.pathname} does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  }
  const name = file.pathname.split('/').pop()!;
  const payloads = payloadFieldsOf(schema, document, name);
  return { name, compiled: payloads.length ? unwrapping(compiled, payloads) : compiled, document, rootFields: rootFields(document) };
}

function unwrapping(compiled: CompiledQuery, payloads: readonly PayloadField[]): CompiledQuery {
  const unwrap = (result: ExecutionResult) => withUserErrorsAsErrors(result, payloads);
  return {
    ...compiled,
    query: (root, context, variables) => {
      const result = compiled.query(root, context, variables);
      return result instanceof Promise ? result.then(unwrap) : unwrap(result);
    },
  };
}

function rootFields(document: DocumentNode): string[] {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return (operation?.selectionSet.selections ?? []).flatMap((s) => (s.kind === Kind.FIELD ? [s.alias?.value ?? s.name.value] : []));
}
