import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/bomcore.js', import.meta.url));
const TRACER = fileURLToPath(new URL('./trace-imports.ts', import.meta.url));

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** Runs the real `bomcore` command in a child process. */
export function runCli(args: string[], env: Record<string, string | undefined>, options: { node?: string; nodeArgs?: string[]; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], { env: { ...process.env, ...env } as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `bomcore` like runCli and also returns the modules it loaded (file URLs and node: builtins). */
export async function runCliTracingImports(args: string[], env: Record<string, string | undefined>): Promise<CliResult & { modules: string[] }> {
  const out = join(mkdtempSync(join(tmpdir(), 'bomcore-imports-')), 'modules.txt');
  const result = await runCli(args, { ...env, BOMCORE_TRACE_IMPORTS: out }, { nodeArgs: ['--import', TRACER] });
  return { ...result, modules: readFileSync(out, 'utf8').split('\n').filter(Boolean) };
}

/** Modules of the ORM, the database drivers, the GraphQL schema and the HTTP server, among `modules`. */
export function heavyModules(modules: string[]): string[] {
  return modules.filter((url) => /node_modules\/(@mikro-orm|@electric-sql|pg|kysely|graphql|@pothos|fastify|mercurius)\/|\/schema\/|\/rest-facade\/|\/src\/app\.ts$/.test(url));
}
