import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseLabel, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { runCli } from './run-cli.ts';

// `bomcore plan` names a shop that does not exist instead of printing an empty plan for it, as
// `key create` and `webhook create` do; a shop that exists with nothing open plans nothing.

const work = mkdtempSync(join(tmpdir(), 'bomcore-plan-cli-'));
const env = {
  ...(usingPostgres ? {} : { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(work, 'data') }),
  BOMCORE_SECRET_KEY: randomBytes(32).toString('hex'),
};

describe(`bomcore plan on ${databaseLabel}`, () => {
  it('rule: an unknown shop is refused, naming it (exit 1); a loaded shop plans (exit 0, one JSON object)', async () => {
    const refused = await runCli(['plan', '--shop', 'no-such-shop'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('shop no-such-shop not found');
    expect(refused.stdout).toBe('');

    const shop = uniqueShopId('plan-cli');
    const file = join(work, `${shop}.json`);
    writeFileSync(file, JSON.stringify(datasetJson(shop)));
    expect((await runCli(['load', file], env)).code).toBe(0);
    const planned = await runCli(['plan', '--shop', shop, '--as-of', '2026-11-12'], env);
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ shopId: shop, asOf: '2026-11-12' });
  }, 120_000);
});
