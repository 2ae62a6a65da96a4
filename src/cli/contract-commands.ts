import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse, UsageError } from './args.ts';

/** The two committed SDL files: what clients generate code from, and what a federation gateway composes. */
const SDL_FILES = {
  client: { file: fileURLToPath(new URL('../../schema/schema.graphql', import.meta.url)), shown: 'schema/schema.graphql' },
  subgraph: { file: fileURLToPath(new URL('../../schema/subgraph.graphql', import.meta.url)), shown: 'schema/subgraph.graphql' },
} as const;

/**
 * `print-schema [--subgraph]`: the client SDL (no federation internals), or with `--subgraph` the
 * subgraph SDL a gateway reads from `_service { sdl }`. `--check` says whether the committed files
 * are up to date (both, or the `--subgraph` one), `--check FILE` whether FILE is.
 */
export async function printSchemaCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { check: { type: 'boolean' }, subgraph: { type: 'boolean' } }, 1);
  if (positionals.length > 0 && !values.check) throw new UsageError(`unexpected argument "${positionals[0]}": a FILE goes with --check`);
  const { printSchemaSdl, printSubgraphSdl } = await import('../../schema/index.ts');
  const printed = { client: printSchemaSdl, subgraph: printSubgraphSdl };
  const kind = values.subgraph ? 'subgraph' : 'client';
  if (!values.check) {
    process.stdout.write(printed[kind]());
    return;
  }
  const file = positionals[0];
  if (file !== undefined) {
    await checkSdl(file, file, printed[kind](), '');
    return;
  }
  for (const which of values.subgraph ? ['subgraph' as const] : ['client' as const, 'subgraph' as const]) {
    await checkSdl(SDL_FILES[which].file, SDL_FILES[which].shown, printed[which](), ': run `npm run schema:print`');
  }
}

/** Says whether `file` holds `sdl`; exit code 1 when it does not. */
async function checkSdl(file: string, shown: string, sdl: string, hint: string): Promise<void> {
  const committed = await readFile(file, 'utf8').catch(() => '');
  if (committed !== sdl) {
    console.error(`${shown} is out of date${hint}`);
    process.exitCode = 1;
    return;
  }
  console.log(`${shown} is up to date`);
}

export async function printOpenApiCommand(args: string[]): Promise<void> {
  parse(args, {});
  const { buildOpenApiDocument } = await import('./openapi-document.ts');
  process.stdout.write(`${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
}
