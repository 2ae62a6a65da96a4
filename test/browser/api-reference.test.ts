import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.ts';
import { ConfigError, loadConfig } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/app/database.ts';
import { openTestOrm } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rules (issue 12, "In the browser"; no browser needed here, see reference-pages.test.ts for Chromium):
// - /api/v1/docs is an HTML page rendered from the same document as /api/v1/openapi.json, every
//   script, style and image served by this server (no CDN), with no key;
// - its policy lets its own scripts and styles run and nothing from elsewhere, and forbids framing;
//   the rest of the API keeps `default-src 'none'`;
// - the page is not an operation of the document;
// - BOMCORE_API_DOCS: on by default, off under NODE_ENV=production unless BOMCORE_API_DOCS=1; off, /api/v1/docs is 404.

let orm: Orm;
let on: TestApp;
let off: TestApp;

beforeAll(async () => {
  orm = await openTestOrm();
  on = await createTestApp({ orm, config: { apiDocs: true } });
  off = await createTestApp({ orm, config: { apiDocs: false } });
});
afterAll(async () => {
  await on?.close();
  await off?.close();
  await orm?.close();
});

/** Every `src` and `href` of an HTML page. */
function references(html: string): string[] {
  return [...html.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1]!);
}

describe('/api/v1/docs, the REST API reference page', () => {
  it('is HTML, needs no key, and every asset it references is served by this server with its type', async () => {
    for (const url of ['/api/v1/docs', '/api/v1/docs/']) {
      const page = await on.request({ method: 'GET', url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type'], url).toContain('text/html');
      const refs = references(page.body);
      expect(refs.filter((r) => r.endsWith('.js')).length, url).toBeGreaterThanOrEqual(2);
      // No CDN: no absolute URL (http:, https:, protocol-relative) anywhere in the page.
      expect(refs.filter((r) => /^(?:[a-z]+:)?\/\//i.test(r)), url).toEqual([]);
      expect(page.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
      for (const ref of refs) {
        const asset = await on.request({ method: 'GET', url: new URL(ref, `http://host${url}`).pathname });
        expect(asset.statusCode, ref).toBe(200);
        const type = String(asset.headers['content-type']);
        if (ref.endsWith('.js')) expect(type, ref).toMatch(/javascript/);
        if (ref.endsWith('.css')) expect(type, ref).toMatch(/text\/css/);
        if (ref.endsWith('.png')) expect(type, ref).toMatch(/image\/png/);
        expect(asset.headers['x-content-type-options'], ref).toBe('nosniff');
      }
    }
  });

  it('renders the same document as /api/v1/openapi.json (the page loads ./json), which lists no docs route', async () => {
    const served = await on.request({ method: 'GET', url: '/api/v1/openapi.json' });
    const json = await on.request({ method: 'GET', url: '/api/v1/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual(served.json());
    const initializer = await on.request({ method: 'GET', url: '/api/v1/docs/static/swagger-initializer.js' });
    expect(initializer.body).toContain("resolveUrl('./json')");
    // No online validator badge (it would call validator.swagger.io).
    expect(initializer.body).toContain('validatorUrl: null');
    expect(Object.keys(served.json().paths).filter((p) => p.includes('/docs'))).toEqual([]);
  });

  it('security headers: its own scripts and styles may run, nothing from another origin, never framed; the API stays locked', async () => {
    for (const url of ['/api/v1/docs', '/api/v1/docs/static/swagger-ui-bundle.js', '/api/v1/docs/json']) {
      const res = await on.request({ method: 'GET', url });
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).toContain("default-src 'self'");
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).not.toMatch(/https?:|\*|'unsafe-eval'/);
      expect(csp.match(/script-src[^;]*/)?.[0] ?? '', url).not.toContain('unsafe-inline');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }
    for (const url of ['/api/v1/openapi.json', '/api/v1/locations', '/api/v1/docsx']) {
      const res = await on.request({ method: 'GET', url });
      expect(res.headers['content-security-policy'], url).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('serving the page, its redirect and its assets logs no warning and no error (no answer is sent twice)', async () => {
    const lines: { level: number; msg?: string }[] = [];
    const logged = await buildApp({
      config: on.config, orm, logger: { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg?: string }) } },
    });
    try {
      for (const url of ['/api/v1/docs', '/api/v1/docs/', '/api/v1/docs/static/index.html', '/api/v1/docs/json', '/api/v1/docs/static/swagger-initializer.js', '/api/v1/docs/static/swagger-ui.css']) {
        const res = await logged.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBeLessThan(400);
      }
      // Before: each of these synchronous handlers' answers was sent a second time by the deadline's async
      // wrapper ("Reply was already sent, did you forget to \"return reply\"", then ERR_HTTP_HEADERS_SENT).
      expect(lines.map((l) => `${l.level} ${l.msg ?? ''}`)).toEqual([]);
    } finally {
      await logged.close();
    }
  });

  it('off (BOMCORE_API_DOCS=0, or production without it): /api/v1/docs and its assets are 404 problems', async () => {
    for (const url of ['/api/v1/docs', '/api/v1/docs/json', '/api/v1/docs/static/swagger-ui-bundle.js']) {
      const res = await off.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await off.request({ method: 'GET', url: '/api/v1/openapi.json' })).statusCode).toBe(200);
  });

  it('BOMCORE_API_DOCS: default on, off under NODE_ENV=production, turned on there by BOMCORE_API_DOCS=1', () => {
    expect(loadConfig({}).apiDocs).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).apiDocs).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', BOMCORE_API_DOCS: '1' }).apiDocs).toBe(true);
    expect(loadConfig({ BOMCORE_API_DOCS: 'off' }).apiDocs).toBe(false);
    expect(() => loadConfig({ BOMCORE_API_DOCS: 'yes' })).toThrow(ConfigError);
  });
});
