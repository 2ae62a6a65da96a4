// Compares two OpenAPI documents of the REST contract structurally: every component schema (by name)
// and every operation's responses (status, content type, schema or $ref, headers). Types, required
// lists, nullability, enums, formats, bounds, property sets and their order, titles and component
// names must be equal; descriptions are counted apart (wording may change), and the lost ones are listed
// with their paths and texts.
//
//   node bench/openapi-diff.ts before.json after.json
import { readFileSync } from 'node:fs';

type Json = Record<string, any>;

interface Lost { path: string; text: string }
interface Report { structural: string[]; descriptions: { added: number; lost: number; changed: number }; lost: Lost[] }

function compare(a: unknown, b: unknown, path: string, report: Report): void {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x) => typeof x === 'object' && x !== null)) {
      a.forEach((x, i) => compare(x, b[i], `${path}[${i}]`, report));
    } else {
      report.structural.push(`${path}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
    }
    return;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    if (a !== b) report.structural.push(`${path}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
    return;
  }
  const x = a as Json;
  const y = b as Json;
  if (x.properties && y.properties) {
    const before = Object.keys(x.properties).join(',');
    const after = Object.keys(y.properties).join(',');
    if (before !== after) report.structural.push(`${path}.properties: [${before}] → [${after}]`);
  }
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (key === 'description' && path.includes('schema')) {
      if (x[key] === y[key]) continue;
      if (x[key] === undefined) report.descriptions.added++;
      else if (y[key] === undefined) {
        report.descriptions.lost++;
        report.lost.push({ path, text: String(x[key]) });
      }
      else report.descriptions.changed++;
      continue;
    }
    // A response example is built from its schema (openapi-finish.ts): compared through the schema.
    if (key === 'example' && !path.includes('schema')) continue;
    if (!(key in x)) report.structural.push(`${path}: ${key} added (${JSON.stringify(y[key]).slice(0, 160)})`);
    else if (!(key in y)) report.structural.push(`${path}: ${key} removed (${JSON.stringify(x[key]).slice(0, 160)})`);
    else compare(x[key], y[key], `${path}.${key}`, report);
  }
}

export function diffOpenApi(before: Json, after: Json): Report & { components: number; responses: number } {
  const report: Report = { structural: [], descriptions: { added: 0, lost: 0, changed: 0 }, lost: [] };
  const a: Json = before.components?.schemas ?? {};
  const b: Json = after.components?.schemas ?? {};
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const name of names) {
    if (!(name in b)) report.structural.push(`component ${name} removed`);
    else if (!(name in a)) report.structural.push(`component ${name} added`);
    else compare(a[name], b[name], `schema ${name}`, report);
  }
  let responses = 0;
  for (const [url, operations] of Object.entries<Json>(before.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const other = after.paths?.[url]?.[method];
      if (!other) {
        report.structural.push(`${method.toUpperCase()} ${url} removed`);
        continue;
      }
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        responses++;
        compare(response, other.responses?.[status], `${method.toUpperCase()} ${url} ${status}`, report);
      }
    }
  }
  return { ...report, components: names.length, responses };
}

if (import.meta.main) {
  const [beforeFile, afterFile] = process.argv.slice(2);
  if (!beforeFile || !afterFile) throw new Error('usage: node bench/openapi-diff.ts before.json after.json');
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Json;
  const result = diffOpenApi(read(beforeFile), read(afterFile));
  for (const line of result.structural) console.log(line);
  for (const { path, text } of result.lost) console.log(`description lost: ${path}: ${JSON.stringify(text)}`);
  console.log(`${result.components} components, ${result.responses} responses compared: ${result.structural.length} structural differences; `
    + `descriptions ${result.descriptions.changed} reworded, ${result.descriptions.added} added, ${result.descriptions.lost} lost`);
  process.exitCode = result.structural.length ? 1 : 0;
}
