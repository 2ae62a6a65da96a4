import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { BIN } from '../cli/run-cli.ts';

/** A `bomcore serve` child process, its address once listening, and what it printed. */
export interface Server { child: ChildProcess; address: string; stdout: () => string; exited: Promise<number | null> }

const running: Server[] = [];

/**
 * Starts `bomcore serve` on a free port with `env` over this process's environment and waits for
 * its "listening" line (at most `startTimeoutMs`). Servers still running after a test are killed.
 */
export async function startServer(env: Record<string, string | undefined>, options: { startTimeoutMs?: number; nodeFlags?: string[] } = {}): Promise<Server> {
  // Without `nodeFlags`, `serve` lacks the V8 flags it wants and relays to a child given them (bin/node-flags.js):
  // `child` is then the relay. A test about the serving process itself passes serve's flags (flagsFor).
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), BIN, 'serve'], {
    // Load shedding off and the deadline far away, as in test/helpers/test-app.ts: a test about another rule
    // must not see a 503 because the machine is busy. A test about them passes its own values in `env`.
    // One process (no cluster, whatever the cores), unless a test about `--workers` says otherwise.
    env: {
      ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', BOMCORE_LOAD_SHED_LAG_MS: '0', BOMCORE_REQUEST_DEADLINE_MS: '45000', BOMCORE_WORKERS: '1', ...env,
    } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const server: Server = { child, address: '', stdout: () => out, exited };
  running.push(server);
  const deadline = Date.now() + (options.startTimeoutMs ?? 90_000);
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  server.address = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  return server;
}

/** Registers the clean-up in the calling test file: every server a test started and left running is killed. */
export function killServersAfterEach(): void {
  afterEach(() => {
    for (const s of running.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  });
}

/**
 * A PostgreSQL database of the calling test file's own, for the `bomcore serve` processes it starts
 * and the CLI commands that feed them (`url()`; created before its tests, dropped after). A served
 * process runs the background passes (the outbox drainer drains every shop's pending pushes at
 * start) and its tests lock tables: on the suite's shared database that would move other files'
 * stock and hold their statements. Each server migrates it on start. On PGlite runs: unused.
 */
export function useServerDatabase(): { url: () => string } {
  let name = '';
  const base = process.env.DATABASE_URL;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    if (!base) return;
    name = `${new URL(base).pathname.slice(1)}_srv_${randomBytes(4).toString('hex')}`;
    await admin(`create database "${name}"`);
  });
  afterAll(async () => {
    if (name) await admin(`drop database if exists "${name}" with (force)`);
  });
  return {
    url: () => {
      if (!base || !name) throw new Error('useServerDatabase: only on PostgreSQL runs (DATABASE_URL), inside a test');
      const url = new URL(base);
      url.pathname = `/${name}`;
      return url.toString();
    },
  };
}

/** A line of a server's JSON log (LOG_LEVEL=info or lower prints them). */
export type LogLine = Record<string, unknown> & { pid: number; msg: string };

/** The server's JSON log lines with message `msg`. */
export function logLines(server: Server, msg: string): LogLine[] {
  return server.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine).filter((l) => l.msg === msg);
}

/** Polls `condition` until it holds; throws naming `what` after `ms`. */
export async function waitFor(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A GET on a new TCP connection (no keep-alive pool; a cluster hands connections to workers in turn): status, or the error's code. */
export function freshConnectionGet(url: string, key: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end();
  });
}
