import { describe, expect, it } from 'vitest';
import { COMMAND_HELP } from '../../src/cli/help.ts';
import { heavyModules, runCliTracingImports } from './run-cli.ts';

// Rule: a command loads only what it uses (src/cli/main.ts imports each command's module when that
// command runs). Help and usage errors load no more than the CLI's own small files, so they answer
// at once however busy the machine; only a command that works on the database loads the ORM. What
// is asserted is what loads, not a time (a busy CI machine would make a timing flaky); the figures
// are in the report of issue 18 (about 0.1 s for `bomcore --help` against 1.4 s before).

const env = { DATABASE_URL: undefined, BOMCORE_DATA_DIR: '/nonexistent/bomcore-imports-test' };
const ownFiles = (modules: string[]) => modules.filter((url) => url.startsWith('file:') && !url.includes('/node_modules/')).map((url) => url.replace(/^.*\/(src|bin|test)\//, '$1/'));

describe('help loads nothing but the help', () => {
  const cases: string[][] = [['--help'], ['help'], ['help', 'load'], ...Object.keys(COMMAND_HELP).map((c) => [c, '--help']), ['key', 'create', '--help']];
  it.each(cases.map((args) => [args.join(' '), args]))('bomcore %s', async (_name, args) => {
    const res = await runCliTracingImports(args, env);
    expect(res.code, res.stderr).toBe(0);
    expect(heavyModules(res.modules)).toEqual([]);
    expect(ownFiles(res.modules).filter((file) => !file.startsWith('test/')).sort()).toEqual(['bin/bomcore.js', 'bin/node-flags.js', 'src/cli/args.ts', 'src/cli/help.ts', 'src/cli/main.ts']);
  });
}, 120_000);

describe('usage errors are found before anything heavy is loaded', () => {
  it.each([
    ['generate --materials -5', ['generate', '--materials', '-5'], 'bomcore generate: --materials must be a positive integer'],
    ['load missing.json', ['load', 'missing.json'], 'bomcore load: no such file: missing.json'],
    ['export without --shop', ['export'], 'bomcore export: --shop is required'],
    ['key create without --scopes', ['key', 'create', '--shop', 'demo'], 'bomcore key: --scopes is required'],
    ['serve with an argument', ['serve', 'now'], 'bomcore serve: unexpected argument "now"'],
  ])('%s', async (_name, args, message) => {
    const res = await runCliTracingImports(args, env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
    expect(heavyModules(res.modules)).toEqual([]);
  });
}, 120_000);

describe('commands that need no database do not load the ORM', () => {
  it('generate loads the generator, not the ORM, the schema or the server', async () => {
    const res = await runCliTracingImports(['generate', '--materials', '5', '--boms', '2', '--orders', '1', '--work-orders', '1'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).formatVersion).toBe(1);
    expect(heavyModules(res.modules)).toEqual([]);
  });
}, 120_000);
