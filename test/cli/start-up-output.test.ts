import { describe, expect, it } from 'vitest';
import { textLogStream } from '../../src/http/errors/text-log.ts';
import { StartupSteps } from '../../src/cli/startup-steps.ts';
import { killServersAfterEach, startServer, waitFor } from '../helpers/server-process.ts';

// Issue 33 item 5: a first start says what it does, one line per step with its time, and warns
// about nothing when nothing is wrong; on a terminal each request is one short line without the
// key (LOG_FORMAT=text here, which is what a TTY gets by default); JSON stays the default elsewhere.

killServersAfterEach();

describe('bomcore serve on a new embedded database (a first start)', () => {
  it('rule: one "start-up:" line per step with its time, before the welcome; no warning; text log lines, one per request, never the key', async () => {
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: 'memory://', LOG_LEVEL: 'info', LOG_FORMAT: 'text' }, { startTimeoutMs: 180_000 });
    const out = server.stdout();
    const steps = out.split('\n').filter((line) => line.startsWith('start-up:'));
    expect(steps.map((line) => /^start-up: ([^…]+)…/.exec(line)?.[1])).toEqual([
      'opening the embedded database (in memory)', 'applying migrations', 'preparing the demo shop', 'loading the HTTP server', 'preparing each read route once',
    ]);
    for (const line of steps) expect(line).toMatch(/… (.+, )?\d+\.\d s$/);
    expect(steps[4]).toMatch(/… \d+ ready(, \d+ left for their first request)?, /);
    expect(steps[1]).toMatch(/… \d+ applied, /);
    expect(steps[2]).toContain('Loaded the demo shop "Lumen & Wick Candle Co." (id demo), ');
    expect(out.indexOf('start-up: preparing each read route once')).toBeLessThan(out.indexOf('bomcore listening on'));
    const key = /(bck_[A-Za-z0-9_-]+)/.exec(out)![1]!;

    const before = server.stdout().length;
    expect((await fetch(`${server.address}/api/v1/locations?pageSize=1`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(400);
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await waitFor(() => server.stdout().slice(before).includes('GET /api/v1/locations 200'), 'the request lines');
    const requestLines = server.stdout().slice(before).split('\n').filter(Boolean);
    expect(requestLines).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d GET \/api\/v1\/locations\?pageSize=1 400 \d+(\.\d)? ms$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d GET \/api\/v1\/locations 200 \d+(\.\d)? ms$/),
    ]);
    // Nothing was wrong: no warning, no JSON, and the key only where the welcome prints it.
    expect(out).not.toMatch(/WARN|ERROR|"level":/);
    expect(server.stdout().slice(out.length)).not.toContain(key);
    expect(server.stdout()).not.toContain('incomplete');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 240_000);

  it('rule: stdout not a terminal (LOG_FORMAT unset) keeps the JSON lines a log shipper reads', async () => {
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: 'memory://', LOG_LEVEL: 'info', BOMCORE_WARM_UP: '0' }, { startTimeoutMs: 180_000 });
    await waitFor(() => server.stdout().includes('"msg":"Server listening at'), 'the JSON log line of listen');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 240_000);
});

describe('the pieces', () => {
  it('rule: the text log writes an error with its message, a warning with its level, a line it cannot read as it came, and leaves the warm-up to the start-up line', () => {
    const written: string[] = [];
    const stream = textLogStream({ write: (text) => written.push(text) });
    const time = Date.UTC(2026, 10, 29, 12, 4, 31);
    stream.write(JSON.stringify({ level: 30, time, requestId: 'r1', req: { method: 'PATCH', url: '/api/v1/work-orders/x' }, msg: 'incoming request' }));
    stream.write(JSON.stringify({ level: 40, time, component: 'outbox', msg: 'push failed', err: { message: 'timeout' } }));
    stream.write(JSON.stringify({ level: 30, time, requestId: 'r1', res: { statusCode: 409 }, responseTime: 12.4, msg: 'request completed' }));
    stream.write(JSON.stringify({ level: 30, time, component: 'warm-up', warmUp: { ran: 3 }, msg: 'start-up warm-up done' }));
    stream.write('not json\n');
    expect(written).toEqual(['12:04:31 WARN push failed component=outbox\n  timeout\n', '12:04:31 PATCH /api/v1/work-orders/x 409 12 ms\n', 'not json\n']);
  });

  it('rule: a step line says what it found and its time', async () => {
    const written: string[] = [];
    let t = 0;
    const steps = new StartupSteps({ write: (text) => written.push(text) }, () => (t += 1250));
    expect(await steps.run('applying migrations', async () => ['a', 'b'], (applied) => `${applied.length} applied`)).toEqual(['a', 'b']);
    await steps.run('loading the HTTP server', async () => null);
    // A step that logs is written whole after its log lines.
    await steps.run('warming up', async () => written.push('a log line\n'), () => null, { logs: true });
    expect(written.join('')).toBe('start-up: applying migrations… 2 applied, 1.3 s\nstart-up: loading the HTTP server… 1.3 s\na log line\nstart-up: warming up… 1.3 s\n');
  });
});
