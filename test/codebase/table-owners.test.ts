import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// One owner per table (docs/architecture.md, "Layers"): each table is declared by one module's
// entities, and only that module's SQL names it. Another module asks the owner for a read or an SQL
// fragment the owner exports. Typed queries cannot break this (a module's builder knows only its own
// tables, and lint:layers keeps builders private); this test also reads the SQL text of every module,
// raw fragments included.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The owner of a file: its module under src/modules, or `platform` for the platform port and its local store. */
function ownerOf(file: string): string | undefined {
  const module = /^src\/modules\/([^/]+)\//.exec(file)?.[1];
  if (module) return module;
  return file.startsWith('src/platform/') ? 'src/platform' : undefined;
}

const sources = [...filesUnder('src/modules'), ...filesUnder('src/platform')].map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

/** tableName → owning module, from the entity definitions. */
const owners = new Map<string, string>();
for (const { file, text } of sources) {
  for (const m of text.matchAll(/tableName:\s*'([a-z_]+)'/g)) owners.set(m[1]!, ownerOf(file)!);
}

/** Code without comments: a comment may name any table. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Tables of other owners that a file's SQL names (after from/join/into/update, or in a Kysely table call). */
function foreignTables(file: string, text: string): string[] {
  const owner = ownerOf(file);
  const code = withoutComments(text);
  const found = new Set<string>();
  for (const [table, tableOwner] of owners) {
    if (tableOwner === owner) continue;
    const sql = new RegExp(`\\b(from|join|into|update|table)\\s+"?${table}"?(?![a-z_])`, 'i');
    const kysely = new RegExp(`\\b(selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto)\\(\\s*'${table}\\b`);
    if (sql.test(code) || kysely.test(code)) found.add(`${file} → ${tableOwner}.${table}`);
  }
  return [...found];
}

describe('one owner per table', () => {
  it('every table is declared by exactly one module', () => {
    expect(owners.size).toBeGreaterThan(35);
    expect(owners.get('material_levels')).toBe('stock');
    expect(owners.get('platform_variants')).toBe('src/platform');
  });

  it('no module\'s SQL names another module\'s table', () => {
    expect(sources.flatMap(({ file, text }) => foreignTables(file, text))).toEqual([]);
  });

  it('the check sees a foreign table in raw SQL and in a typed query', () => {
    expect(foreignTables('src/modules/stock/x.ts', "em.execute('select id from materials m join boms b on b.id = m.id')"))
      .toEqual(['src/modules/stock/x.ts → boms.boms', 'src/modules/stock/x.ts → materials.materials']);
    expect(foreignTables('src/modules/orders/x.ts', "ordersSql.selectFrom('work_orders')")).toEqual(['src/modules/orders/x.ts → work-orders.work_orders']);
    expect(foreignTables('src/modules/stock/x.ts', "// reads from materials\nstockSql.selectFrom('material_levels')")).toEqual([]);
  });
});
