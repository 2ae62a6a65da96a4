import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Import boundaries, checked on the source text: a layer may not reach into the ones it must
// only know through an interface (the facade through GraphQL, the database layer through the
// entity list it is given).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Relative module specifiers of a file's imports and re-exports (static or dynamic), resolved against the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(root, dirname(file), s)));
}

function violations(folder: string, forbidden: readonly string[]): string[] {
  return sourceFiles(folder).flatMap((file) =>
    importsOf(file).filter((target) => forbidden.some((f) => target.startsWith(f))).map((target) => `${file} imports ${target}`));
}

describe('import boundaries', () => {
  it('the facade sees files to check (guards the rules below against an empty scan)', () => {
    expect(sourceFiles('rest-facade')).toContain('rest-facade/plugin.ts');
    expect(importsOf('rest-facade/plugin.ts')).toContain('src/http/problem.ts');
  });

  it('no file under rest-facade/ imports from src/modules/ or src/db/ (the facade goes through GraphQL)', () => {
    expect(violations('rest-facade', ['src/modules/', 'src/db/'])).toEqual([]);
  });

  it('no file under src/db/ imports from src/modules/ (the database layer knows no module)', () => {
    expect(violations('src/db', ['src/modules/'])).toEqual([]);
  });
});
