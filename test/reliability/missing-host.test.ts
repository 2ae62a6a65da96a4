import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/app/database.ts';
import { openTestOrm } from '../helpers/database.ts';
import { OpenApiValidator } from '../helpers/openapi-validator.ts';

// Rule: a request without a Host header is answered like every other refusal: problem+json with
// X-Request-Id (400 for HTTP/1.1, which requires Host; HTTP/1.0 does not, so it goes on to the route).
// Before, Node answered an HTTP/1.1 one itself with a bare 400: no body, no request id.

let orm: Orm;
let app: App;
let port: number;
let validator: OpenApiValidator;

beforeAll(async () => {
  orm = await openTestOrm();
  app = await buildApp({ config: { ...loadConfig({}), dataDir: 'memory://' }, orm, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
  validator = new OpenApiValidator(app.swagger());
});
afterAll(async () => {
  await app.close();
  await orm.close();
});

/** Sends `bytes` on a fresh TCP connection and parses the one response the server writes before closing. */
function rawRequest(bytes: string): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [status = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ statusCode: Number(status.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

function expectProblemWithRequestId(response: Awaited<ReturnType<typeof rawRequest>>, status: number): Record<string, unknown> {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toContain('application/problem+json');
  const requestId = response.headers['x-request-id'];
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  expect(problem.requestId).toBe(requestId);
  validator.validate('GET', '/api/v1/locations', status, response.headers['content-type'], problem);
  return problem;
}

describe('a request without a Host header', () => {
  it('HTTP/1.1 without Host: 400 problem+json naming the Host header, with X-Request-Id', async () => {
    const response = await rawRequest('GET /api/v1/locations HTTP/1.1\r\nConnection: close\r\n\r\n');
    const problem = expectProblemWithRequestId(response, 400);
    expect(problem).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'Host' }] });
    expect(String(problem.detail)).toContain('Host header');
  });

  it('HTTP/1.0 without Host (allowed by HTTP/1.0): the route answers, problem+json with X-Request-Id (401 without a key)', async () => {
    const response = await rawRequest('GET /api/v1/locations HTTP/1.0\r\n\r\n');
    expect(expectProblemWithRequestId(response, 401)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('HTTP/1.1 with Host still reaches the route', async () => {
    const response = await rawRequest('GET /api/v1/locations HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(expectProblemWithRequestId(response, 401)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
