import { ConfigError } from '../config.ts';
import { DomainError } from '../domain-error.ts';
import { UsageError } from './args.ts';
import { exportCommand, generateCommand, loadCommand, migrateCommand } from './dataset-commands.ts';
import { keyCommand } from './key-commands.ts';
import { printOpenApiCommand, printSchemaCommand } from './contract-commands.ts';
import { serveCommand } from './serve.ts';

const HELP = `bomcore — manufacturing and inventory service

Usage: bomcore <command> [options]

  serve                              run the HTTP server (HOST, PORT; migrates first; demo data on an empty embedded database)
  migrate                            apply pending database migrations
  load FILE                          validate FILE and replace its shop's data with it (one transaction)
  export --shop ID [--out FILE]      write a shop's dataset (stdout by default)
  generate [--materials N] [--boms N] [--depth D] [--locations N]
           [--work-orders N] [--orders N] [--seed S] [--shop ID] [--out FILE]
                                     write a deterministic synthetic dataset (progress on stderr)
  key create --shop ID --scopes read|read,write [--name N] [--expires-in 30d] [--json]
  key list --shop ID [--json]
  key revoke ID
  print-schema [--check]             print the GraphQL SDL (--check: compare with schema/schema.graphql)
  print-openapi                      print the OpenAPI document

Database: DATABASE_URL (PostgreSQL) or, when unset, embedded PGlite under BOMCORE_DATA_DIR (default ./.data).
The embedded database has one owner at a time (BOMCORE_DATA_DIR/bomcore.lock): while \`serve\` runs on it,
other commands refuse and name the server; stop it first, or use PostgreSQL for several processes.`;

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
  console.log(HELP);
  process.exit(name ? 0 : 2);
}
const command = commands[name];
if (!command) {
  console.error(`bomcore: unknown command "${name}"\n\n${HELP}`);
  process.exit(2);
}
try {
  await command(rest);
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`bomcore ${name}: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof DomainError || error instanceof ConfigError) {
    console.error(`bomcore ${name}: ${error.message}`);
    process.exit(1);
  }
  console.error(`bomcore ${name}: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
}
