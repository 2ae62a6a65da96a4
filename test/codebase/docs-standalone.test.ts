import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { routes } from '../../rest-facade/routes/index.ts';

/**
 * The README and docs/ stand alone: a reader of the repository finds the contract, the dataset
 * format and every rule there, and no page sends them anywhere the repository does not ship.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = join(ROOT, 'docs');
const PAGES = ['README.md', ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** Markdown links `[text](target)` and autolinks `<target>`, outside fenced code blocks. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const found: string[] = [];
  for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push(m[1]!);
  for (const m of prose.matchAll(/<((?:https?:\/\/|\.{0,2}\/)[^>\s]+)>/g)) found.push(m[1]!);
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('docs stand alone (README.md and docs/)', () => {
  it('no page points outside the repository: no shared/ or ../shared paths, no spec files that do not ship', () => {
    const offenders: string[] = [];
    for (const page of PAGES) {
      read(page).split('\n').forEach((line, i) => {
        if (/(^|[^A-Za-z0-9_-])(\.\.\/)*shared\//.test(line)) offenders.push(`${page}:${i + 1}: ${line.trim()}`);
        if (/\b(api-v1|decisions|dataset)\.md\b/.test(line)) offenders.push(`${page}:${i + 1}: ${line.trim()}`);
        if (/\bspec\/[\w-]+\.md\b/.test(line)) offenders.push(`${page}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it('every relative link of a page names a file of the repository, and every #anchor a heading of that page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of links(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [pathPart, anchor] = target.split('#') as [string, string | undefined];
        const file = pathPart === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURI(pathPart));
        if (!file.startsWith(ROOT + sep)) { broken.push(`${page}: ${target} leaves the repository`); continue; }
        if (!existsSync(file)) { broken.push(`${page}: ${target} does not exist`); continue; }
        if (anchor && file.endsWith('.md') && statSync(file).isFile() && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
          broken.push(`${page}: ${target} has no heading #${anchor} in ${relative(ROOT, file)}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('every page of docs/ can be reached by following links from the README', () => {
    const reached = new Set<string>(['README.md']);
    const queue = ['README.md'];
    while (queue.length) {
      const page = queue.shift()!;
      for (const target of links(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const pathPart = target.split('#')[0]!;
        if (!pathPart.endsWith('.md')) continue;
        const next = relative(ROOT, resolve(dirname(join(ROOT, page)), pathPart)).split(sep).join('/');
        if (PAGES.includes(next) && !reached.has(next)) { reached.add(next); queue.push(next); }
      }
    }
    expect(PAGES.filter((p) => !reached.has(p))).toEqual([]);
  });

  it('the configuration reference (docs/deployment.md) names every environment variable the server reads', () => {
    const sources = [join(ROOT, 'src/kernel/config.ts'), join(ROOT, 'src/db/orm.ts')].map((f) => readFileSync(f, 'utf8')).join('\n');
    const names = new Set<string>();
    for (const m of sources.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of sources.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
    expect(names.size).toBeGreaterThan(30);
    const reference = read('docs/deployment.md');
    expect([...names].filter((name) => !reference.includes(`\`${name}\``)).sort()).toEqual([]);
  });

  it('the contract (every REST route), the dataset format and the guides live in docs/ and the README links them', () => {
    const readme = read('README.md');
    for (const page of ['docs/contract.md', 'docs/datasets.md', 'docs/quick-start.md', 'docs/rest-client-guide.md', 'docs/deployment.md']) {
      expect(existsSync(join(ROOT, page)), page).toBe(true);
      expect(readme).toContain(`](${page})`);
    }
    // The dataset format itself (every section), not only how load and export behave.
    const datasets = read('docs/datasets.md');
    for (const section of ['formatVersion', 'platform', 'materials', 'costFactors', 'assemblyBills', 'boms', 'locationRules', 'preassembled',
      'residuals', 'reservations', 'assignees', 'flows', 'tasks', 'workOrders', 'billVersions']) {
      expect(datasets, section).toContain(`"${section}"`);
    }
    // Every REST route of the contract is in docs/contract.md.
    const contract = read('docs/contract.md');
    expect(routes.length).toBeGreaterThan(20);
    const row = (r: { method: string; url: string }) => `| ${r.method} | \`${r.url.replace(/:(\w+)/g, '{$1}')}\` |`;
    expect(routes.map(row).filter((line) => !contract.includes(line))).toEqual([]);
  });
});
