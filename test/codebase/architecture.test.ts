import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

// The layer rules (.dependency-cruiser.cjs, docs/architecture.md "Layers") through dependency-cruiser's
// API, as `npm run lint:layers` checks them in CI: the code breaks none, and a file that breaks one
// is caught under the rule's name.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tsConfigFile = join(root, 'tsconfig.json');

/** Cruises `paths` (relative to `baseDir`) with the project's rules. */
async function cruiseWithRules(paths: string[], baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const { output } = await cruise(paths, { ...options, baseDir, tsConfig: { fileName: tsConfigFile } }, undefined, { tsConfig: extractTSConfig(tsConfigFile) });
  return output as ICruiseResult;
}

const violationsOf = (result: ICruiseResult) => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

const probes = mkdtempSync(join(tmpdir(), 'bomcore-layers-'));
afterAll(() => rmSync(probes, { recursive: true, force: true }));

/** Writes a probe file under the temporary tree (the path as it would be in the repository). */
function probe(path: string, text: string): void {
  mkdirSync(dirname(join(probes, path)), { recursive: true });
  writeFileSync(join(probes, path), text);
}

describe('layer rules (dependency-cruiser)', () => {
  it('src, schema and rest-facade break none of them', async () => {
    const result = await cruiseWithRules(['src', 'schema', 'rest-facade'], root);
    // Guards the rules against an empty scan or unresolved `.ts` imports.
    expect(result.summary.totalCruised).toBeGreaterThan(300);
    const plugin = result.modules.find((m) => m.source === 'rest-facade/plugin.ts');
    expect(plugin?.dependencies.map((d) => d.resolved)).toContain('src/http/errors/problem.ts');
    expect(violationsOf(result)).toEqual([]);
  }, 60_000);

  it('a file that breaks a rule is caught under its name', async () => {
    probe('src/modules/work-orders/vocabulary.ts', "export const OPEN = ['draft'];\n");
    probe('src/modules/boms/probe.ts', "import { OPEN } from '../work-orders/vocabulary.ts';\nexport const probe = OPEN;\n");
    probe('src/platform/local-gateway.ts', 'export class LocalPlatformGateway {}\n');
    probe('src/kernel/shop-context.ts', "import { LocalPlatformGateway } from '../platform/local-gateway.ts';\nexport const gateway = new LocalPlatformGateway();\n");
    probe('src/modules/stock/levels.ts', "import { view } from '../materials/view.ts';\nexport const levels = () => view;\n");
    probe('src/modules/materials/view.ts', "import { levels } from '../stock/levels.ts';\nexport const view = () => levels;\n");
    // A circle inside one folder is caught too (no exception for a module's own files).
    probe('src/cli/serve.ts', "import { run } from './server.ts';\nexport const serve = run;\n");
    probe('src/cli/server.ts', "import { serve } from './serve.ts';\nexport const run = () => serve;\n");
    const violations = violationsOf(await cruiseWithRules(['src'], probes));
    expect(violations).toContain('no-circular: src/cli/serve.ts → src/cli/server.ts');
    expect(violations).toContain('module-order-boms: src/modules/boms/probe.ts → src/modules/work-orders/vocabulary.ts');
    expect(violations).toContain('kernel-imports-only-kernel: src/kernel/shop-context.ts → src/platform/local-gateway.ts');
    expect(violations).toContain('module-order-stock: src/modules/stock/levels.ts → src/modules/materials/view.ts');
    expect(violations).toContain('no-circular: src/modules/materials/view.ts → src/modules/stock/levels.ts');
    probe('src/modules/stock/tables.ts', 'export const stockSql = {};\n');
    probe('src/modules/boms/reads.ts', "import { stockSql } from '../stock/tables.ts';\nexport const reads = stockSql;\n");
    probe('src/modules/orders/tables.ts', "import { Material } from '../materials/material.entity.ts';\nexport const ordersSql = Material;\n");
    probe('src/modules/materials/material.entity.ts', 'export const Material = {};\n');
    const owners = violationsOf(await cruiseWithRules(['src'], probes));
    expect(owners).toContain('tables-are-private: src/modules/boms/reads.ts → src/modules/stock/tables.ts');
    expect(owners).toContain('tables-own-entities: src/modules/orders/tables.ts → src/modules/materials/material.entity.ts');
  }, 60_000);
});
