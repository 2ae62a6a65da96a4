import { readFileSync } from 'node:fs';
import { parse, type DocumentNode } from 'graphql';

/**
 * A stored operation's text parsed: the route's `.graphql` file, then any files of fragments it
 * spreads. What the facade compiles (operations.ts) and what the OpenAPI document derives a route's
 * `data` from (derive-schema.ts), read one way for both.
 */
export function readOperationDocument(files: URL | readonly URL[]): { file: URL; document: DocumentNode } {
  const list = Array.isArray(files) ? files : [files as URL];
  return { file: list[0]!, document: parse(list.map((f) => readFileSync(f, 'utf8')).join('\n')) };
}
