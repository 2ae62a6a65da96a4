import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
import { expect } from 'vitest';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };

/**
 * Validates REST responses against the served OpenAPI document: every response a test receives
 * must be documented (path, method, status, media type) and match its schema.
 */
export class OpenApiValidator {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #doc: Doc;
  readonly #templates: { method: string; pattern: RegExp; path: string }[] = [];
  readonly #cache = new Map<string, ValidateFunction>();

  constructor(document: unknown) {
    addFormats(this.#ajv);
    this.#doc = document as Doc;
    this.#ajv.addSchema(document as object, 'openapi.json');
    for (const [path, ops] of Object.entries(this.#doc.paths)) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(ops)) this.#templates.push({ method, pattern, path });
    }
  }

  /** Returns the documented path template, or null for routes outside the document (health, graphql, 404s, 405s). */
  templateFor(method: string, url: string): string | null {
    const path = url.split('?')[0]!;
    return this.#templates.find((t) => t.method === method.toLowerCase() && t.pattern.test(path))?.path ?? null;
  }

  validate(method: string, url: string, status: number, contentType: string | undefined, body: unknown): void {
    const template = this.templateFor(method, url);
    if (!template) return;
    const responses = this.#doc.paths[template]![method.toLowerCase()]!.responses;
    const response = responses[String(status)];
    expect(response, `${method} ${template} → ${status} is not documented in openapi.json`).toBeDefined();
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    const content = response!.content?.[mediaType];
    expect(content, `${method} ${template} → ${status} ${mediaType} is not documented`).toBeDefined();
    const key = `${template}|${method}|${status}|${mediaType}`;
    let validate = this.#cache.get(key);
    if (!validate) {
      const pointer = ['paths', template, method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema']
        .map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
      validate = this.#ajv.compile({ $ref: `openapi.json#/${pointer}` });
      this.#cache.set(key, validate);
    }
    const ok = validate(body);
    expect(ok, `${method} ${url} → ${status} does not match openapi.json: ${this.#ajv.errorsText(validate.errors)}`).toBe(true);
  }
}
