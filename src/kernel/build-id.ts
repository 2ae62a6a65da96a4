import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What decides an answer's bytes: the code, the stored operations, the schema, the migrations and the locked dependencies. */
const SOURCES = ['src', 'schema', 'rest-facade', 'migrations'];
const SOURCE_FILE = /\.(ts|graphql|json)$/;

let cached: string | undefined;

/**
 * The id of the running build: a hash of its sources (and package-lock.json). Every instance of one
 * deploy computes the same id, so a client behind a load balancer keeps its tags from one to the
 * next; a deploy that changes anything (a serializer, a computation) changes the id, and with it
 * every conditional read's tag (src/http/requests/conditional-get.ts). Computed once per process (a few ms).
 */
export function buildId(): string {
  if (cached !== undefined) return cached;
  const hash = createHash('sha256');
  const files = SOURCES.flatMap((dir) => readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && SOURCE_FILE.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name))));
  for (const file of [...files.sort(), 'package-lock.json']) {
    hash.update(file).update('\0').update(readFileSync(join(ROOT, file))).update('\0');
  }
  cached = hash.digest('base64url').slice(0, 16);
  return cached;
}
