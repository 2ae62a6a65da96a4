import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP } from '../../src/cli/help.ts';
import { formatCount, isInteractive, Progress } from '../../src/cli/progress.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { runCli } from './run-cli.ts';

const work = mkdtempSync(join(tmpdir(), 'bomcore-cli-help-'));
const env = usingPostgres ? {} : { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(work, 'data') };
// Escape sequences and carriage returns are the bar's; plain output has none.
const ESC = String.fromCharCode(27);
const TERMINAL_CONTROL = new RegExp(`\\r|${ESC}\\[`);

describe('every command has --help (exit 0, its usage on stdout)', () => {
  const commands: [string, string[]][] = [
    ...Object.keys(COMMAND_HELP).map((c): [string, string[]] => [c, [c, '--help']]),
    ['load (-h)', ['load', '-h']],
    ['key create', ['key', 'create', '--help']],
    ['help load', ['help', 'load']],
  ];
  it('the list covers every command of `bomcore help`', async () => {
    const main = await runCli(['help'], {});
    expect(main.code).toBe(0);
    const listed = [...main.stdout.matchAll(/^ {2}([a-z][a-z-]+)/gm)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual(Object.keys(COMMAND_HELP).sort());
  });

  it.each(commands)('bomcore %s --help', async (_name, args) => {
    const res = await runCli(args, env);
    expect(res.code, res.stderr).toBe(0);
    const command = args[0] === 'help' ? args[1]! : args[0]!;
    expect(res.stdout).toContain(`Usage:`);
    expect(res.stdout).toContain(`bomcore ${command}`);
    expect(res.stdout).toMatch(/-h, --help/);
    expect(res.stderr).toBe('');
  });
}, 180_000);

describe('usage errors exit 2 with a sentence and a hint', () => {
  it.each([
    ['an unknown option names it and the options there are', ['export', '--shop', 'x', '--frobnicate'], /^bomcore export: unknown option --frobnicate \(options: --shop, --out\)$/m],
    ['an option without its value', ['export', '--shop'], /^bomcore export: --shop needs a value$/m],
    ['an argument a command does not take', ['migrate', 'now'], /^bomcore migrate: unexpected argument "now"/m],
    ['a value given to a flag', ['print-schema', '--check=yes'], /^bomcore print-schema: --check takes no value$/m],
    ['a negative count is a wrong value, not a missing one', ['generate', '--materials', '-5'], /^bomcore generate: --materials must be a positive integer, not "-5"$/m],
    ['a count that is not a number', ['generate', '--boms', 'many'], /^bomcore generate: --boms must be a non-negative integer, not "many"$/m],
    ['no locations', ['generate', '--locations', '0'], /^bomcore generate: --locations must be a positive integer, not "0"$/m],
    ['a file that does not exist', ['load', 'missing.json'], /^bomcore load: no such file: missing\.json$/m],
    ['a directory given as the file', ['load', '.'], /^bomcore load: \. is a directory, not a dataset file$/m],
  ])('%s', async (_rule, args, message) => {
    const res = await runCli(args, env);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).toContain(`Run "bomcore ${args[0]} --help" for usage.`);
    expect(res.stderr).not.toContain('To specify a positional argument');
  });

  it('the usage errors name no error code (ENOENT…) and show no stack', async () => {
    const res = await runCli(['load', 'missing.json'], env);
    expect(res.stderr).not.toMatch(/ENOENT|\n\s+at /);
  });

  it('help for an unknown command exits 2', async () => {
    expect((await runCli(['help', 'frobnicate'], env)).code).toBe(2);
  });
}, 120_000);

describe('print-schema --check', () => {
  it('says "up to date" when the file is the schema, and exits 1 saying "out of date" when it is not', async () => {
    const printed = await runCli(['print-schema'], env);
    expect(printed.code, printed.stderr).toBe(0);
    const file = join(work, 'schema.graphql');
    writeFileSync(file, printed.stdout);
    const same = await runCli(['print-schema', '--check', file], env);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe(`${file} is up to date\n`);
    writeFileSync(file, `${printed.stdout}\ntype Stale { id: ID }\n`);
    const stale = await runCli(['print-schema', '--check', file], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(`${file} is out of date\n`);
  });
}, 120_000);

describe('progress off a terminal: plain lines, no bar (stderr is a pipe here; CI=true says the same)', () => {
  it('generate counts what it makes: no "0 / 1 items" for a phase without a count, no "0 / 0" for an empty one', async () => {
    const res = await runCli(['generate', '--materials', '50', '--boms', '10', '--orders', '0', '--work-orders', '0'], { ...env, CI: 'true' });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stderr.split('\n').filter((line) => line.includes(' items ('));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^generating \w+: [\d,]+ \/ [\d,]+ items \(\d+%\)$/);
    expect(res.stderr).not.toMatch(/: 0 \/ [01] items/);
    expect(res.stderr).not.toMatch(/^generating (orders|workOrders):/m);
    const dataset = JSON.parse(res.stdout);
    const stockRows = dataset.preassembled.length + dataset.residuals.length;
    expect(res.stderr).toContain(`generating stock: ${stockRows} / ${stockRows} items (100%)`);
  });


  it('generate, load and export report progress as lines with counts and percentages', async () => {
    const shop = uniqueShopId('progress');
    const file = join(work, 'progress.json');
    const generate = await runCli(['generate', '--materials', '400', '--boms', '30', '--work-orders', '10', '--orders', '5', '--shop', shop, '--out', file], { ...env, CI: 'true' });
    expect(generate.code, generate.stderr).toBe(0);
    expect(generate.stderr).toMatch(/^generating materials: [\d,]+ \/ 400 items \(\d+%\)$/m);
    expect(generate.stderr).toMatch(/^generating materials: 400 \/ 400 items \(100%\)$/m);
    expect(generate.stderr).not.toMatch(TERMINAL_CONTROL);
    expect(readFileSync(file, 'utf8')).toContain(shop);

    const load = await runCli(['load', file], { ...env, CI: '' });
    expect(load.code, load.stderr).toBe(0);
    expect(load.stderr).toMatch(/^validating [\w. ]+: [\d.]+ \/ [\d.]+ MiB \(\d+%\)$/m);
    expect(load.stderr).toMatch(/^loading materials: 400 \/ 400 rows \(100%\)$/m);
    expect(load.stderr).toMatch(new RegExp(`^loaded shop ${shop}: \\d+ rows`, 'm'));
    expect(load.stderr).not.toMatch(TERMINAL_CONTROL);

    const exported = await runCli(['export', '--shop', shop, '--out', join(work, 'export.json')], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(new RegExp(`^exporting shop ${shop}: 33 / 33 tables \\(100%\\)$`, 'm'));
    expect(exported.stderr).toMatch(/^exporting: writing [\d.]+ MiB to .*export\.json$/m);
    expect(exported.stderr).not.toMatch(TERMINAL_CONTROL);
  }, 240_000);
});

describe('Progress (src/cli/progress.ts)', () => {
  const sink = (isTTY: boolean) => {
    const out: string[] = [];
    return { out, stream: { isTTY, columns: 100, write: (text: string) => out.push(text) } };
  };

  it('counts read like "12,000 / 100,000 rows (12%)"', () => {
    expect(formatCount(12_000, 100_000, 'rows')).toBe('12,000 / 100,000 rows (12%)');
    expect(formatCount(1.25, 5, 'MiB')).toBe('1.3 / 5.0 MiB (25%)');
    expect(formatCount(0, 0, 'rows')).toBe('0 / 0 rows (100%)');
  });

  it.each([
    ['a TTY is interactive', true, {}, true],
    ['CI=true is not', true, { CI: 'true' }, false],
    ['CI=1 is not', true, { CI: '1' }, false],
    ['CI=false still is', true, { CI: 'false' }, true],
    ['TERM=dumb is not', true, { TERM: 'dumb' }, false],
    ['a pipe is not', false, {}, false],
  ])('%s', (_rule, isTTY, env, expected) => {
    expect(isInteractive({ isTTY, write: () => true }, env)).toBe(expected);
  });

  it('plain: the first line, then at most one per interval, and always the last', () => {
    let now = 0;
    const { out, stream } = sink(false);
    const p = new Progress({ stream, interactive: false, plainIntervalMs: 2000, now: () => now });
    for (let done = 1; done <= 100_000; done += 1000) {
      now += 100; // 100 updates over 10 s
      p.update('load', 'materials', done, 100_000);
    }
    p.update('load', 'materials', 100_000, 100_000);
    p.update('load', 'materials', 100_000, 100_000); // the end is said once
    expect(out[0]).toBe('loading materials: 1 / 100,000 rows (0%)\n');
    expect(out.at(-1)).toBe('loading materials: 100,000 / 100,000 rows (100%)\n');
    expect(out.length).toBeGreaterThanOrEqual(5);
    expect(out.length).toBeLessThanOrEqual(7);
    expect(out.join('')).not.toMatch(TERMINAL_CONTROL);
  });

  it('a terminal: one bar redrawn in place, cleared before a message and at the end', () => {
    let now = 0;
    const { out, stream } = sink(true);
    const p = new Progress({ stream, interactive: true, now: () => now });
    p.update('load', 'materials', 12_000, 100_000);
    now += 500;
    p.message('cleared shop demo');
    p.update('load', 'materials', 100_000, 100_000);
    p.finish();
    const text = out.join('');
    expect(out[0]!.startsWith(`\r${ESC}[2K`)).toBe(true);
    expect(out[0]!.slice(5)).toMatch(/^loading materials \[█+░+\] 12,000 \/ 100,000 rows \(12%\)$/);
    expect(text).toContain('\r\x1b[2Kcleared shop demo\n');
    expect(text).toMatch(/\[█+\] 100,000 \/ 100,000 rows \(100%\)/);
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('module messages become counted updates; others pass as lines', () => {
    const { out, stream } = sink(false);
    const p = new Progress({ stream, interactive: false });
    p.message('load: platform.variants 10/10');
    p.message('validate: JSON syntax 1.5/3.0 MiB');
    p.message('cleared shop demo');
    expect(out).toEqual([
      'loading platform.variants: 10 / 10 rows (100%)\n',
      'validating JSON syntax: 1.5 / 3.0 MiB (50%)\n',
      'cleared shop demo\n',
    ]);
  });
});
