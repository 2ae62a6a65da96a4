import { ConfigError } from '../config.ts';
import { DomainError } from '../domain-error.ts';
import { UsageError } from './args.ts';
import { exportCommand, generateCommand, loadCommand, migrateCommand } from './dataset-commands.ts';
import { keyCommand } from './key-commands.ts';
import { printOpenApiCommand, printSchemaCommand } from './contract-commands.ts';
import { serveCommand } from './serve.ts';
import { COMMAND_HELP, MAIN_HELP, wantsHelp } from './help.ts';

const commands: Record<string, (args: string[]) => Promise<void>> = {
  serve: serveCommand,
  migrate: migrateCommand,
  load: loadCommand,
  export: exportCommand,
  generate: generateCommand,
  key: keyCommand,
  'print-schema': printSchemaCommand,
  'print-openapi': printOpenApiCommand,
};

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
const command = commands[name];
if (!command) {
  console.error(`bomcore: unknown command "${name}"\n\n${MAIN_HELP}`);
  process.exit(2);
}
if (wantsHelp(rest)) {
  console.log(COMMAND_HELP[name]);
  process.exit(0);
}
try {
  await command(rest);
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`bomcore ${name}: ${error.message}\nRun "bomcore ${name} --help" for usage.`);
    process.exit(2);
  }
  if (error instanceof DomainError || error instanceof ConfigError) {
    console.error(`bomcore ${name}: ${error.message}`);
    process.exit(1);
  }
  console.error(`bomcore ${name}: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
}
