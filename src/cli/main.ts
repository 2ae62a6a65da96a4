import module from 'node:module';
import { CommandError, UsageError } from './args.ts';
import { COMMAND_HELP, MAIN_HELP, wantsHelp } from './help.ts';

// Run as `node src/cli/main.ts` (not through bin/bomcore.js, which already did): the commands'
// modules, imported below when a command runs, come from V8's compile cache on disk too.
module.enableCompileCache?.();

type Command = (args: string[]) => Promise<void>;

/**
 * Each command's module, imported only when that command runs: `bomcore --help` and a command's
 * `--help` load nothing but this file and help.ts, and `generate` never loads the ORM (a test,
 * test/cli/imports.test.ts, checks what each loads).
 */
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.ts')).serveCommand,
  migrate: async () => (await import('./dataset-commands.ts')).migrateCommand,
  load: async () => (await import('./dataset-commands.ts')).loadCommand,
  export: async () => (await import('./dataset-commands.ts')).exportCommand,
  generate: async () => (await import('./dataset-commands.ts')).generateCommand,
  plan: async () => (await import('./plan-command.ts')).planCommand,
  key: async () => (await import('./key-commands.ts')).keyCommand,
  webhook: async () => (await import('./webhook-commands.ts')).webhookCommand,
  shop: async () => (await import('./shop-commands.ts')).shopCommand,
  'print-schema': async () => (await import('./contract-commands.ts')).printSchemaCommand,
  'print-openapi': async () => (await import('./contract-commands.ts')).printOpenApiCommand,
};

/** Errors that are a sentence for the user (exit 1, no stack): the command's own, bad settings, refused data. */
async function isExpected(error: unknown): Promise<boolean> {
  if (error instanceof CommandError) return true;
  const [{ ConfigError }, { DomainError }] = await Promise.all([import('../kernel/config.ts'), import('../kernel/domain-error.ts')]);
  return error instanceof ConfigError || error instanceof DomainError;
}

/** `bomcore export | head`: the reader closed the pipe and wants no more; not an error. */
const isClosedPipe = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';
process.stdout.on('error', (error) => {
  if (isClosedPipe(error)) process.exit(0);
  throw error;
});

const [name, ...rest] = process.argv.slice(2);
if (!name || name === 'help' || name === '--help' || name === '-h') {
  // `bomcore help load` is `bomcore load --help`.
  const topic = name === 'help' ? rest[0] : undefined;
  if (topic !== undefined && COMMAND_HELP[topic] === undefined) {
    console.error(`bomcore help: unknown command "${topic}"\n\n${MAIN_HELP}`);
    process.exit(2);
  }
  console.log(topic !== undefined ? COMMAND_HELP[topic] : MAIN_HELP);
  process.exit(name ? 0 : 2);
}
const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
if (!load) {
  console.error(`bomcore: unknown command "${name}"\n\n${MAIN_HELP}`);
  process.exit(2);
}
if (wantsHelp(rest)) {
  console.log(COMMAND_HELP[name]);
  process.exit(0);
}
// Some commands want V8 settings only a new process can have (bin/node-flags.js): started as
// `node src/cli/main.ts …` rather than through bin/bomcore.js, this process asks for them itself.
{
  const { flagsFor, missingFlags, runWith, watchRelay } = await import('../../bin/node-flags.js');
  const missing = missingFlags(flagsFor([name, ...rest], process.env));
  if (missing.length > 0) await runWith(process.execPath, [...process.execArgv, ...missing], process.argv[1]!, process.argv.slice(2));
  watchRelay();
}
try {
  await (await load())(rest);
} catch (error) {
  if (isClosedPipe(error)) process.exit(0);
  if (error instanceof UsageError) {
    console.error(`bomcore ${name}: ${error.message}\nRun "bomcore ${name} --help" for usage.`);
    process.exit(2);
  }
  if (await isExpected(error)) {
    console.error(`bomcore ${name}: ${(error as Error).message}`);
    process.exit(1);
  }
  console.error(`bomcore ${name}: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
}
