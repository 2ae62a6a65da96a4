import { readFile } from 'node:fs/promises';
import { printSchemaSdl } from '../../schema/index.ts';
import { buildOpenApiDocument } from '../openapi-document.ts';
import { parse } from './args.ts';

const SCHEMA_FILE = new URL('../../schema/schema.graphql', import.meta.url);

export async function printSchemaCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { check: { type: 'boolean' } });
  const sdl = printSchemaSdl();
  if (!values.check) {
    process.stdout.write(sdl);
    return;
  }
  const committed = await readFile(SCHEMA_FILE, 'utf8').catch(() => '');
  if (committed !== sdl) {
    console.error('schema/schema.graphql is out of date: run `npm run schema:print`');
    process.exitCode = 1;
  }
}

export async function printOpenApiCommand(args: string[]): Promise<void> {
  parse(args, {});
  process.stdout.write(`${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
}
