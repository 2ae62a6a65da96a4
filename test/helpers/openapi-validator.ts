import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
import { expect } from 'vitest';

type Header = { $ref?: string; required?: boolean; schema?: unknown };
type DocResponse = { content?: Record<string, { schema: unknown }>; headers?: Record<string, Header> };
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, DocResponse> }>>;
  components?: { headers?: Record<string, Header> };
};

/** What the validator reads of a response (a light-my-request response is one). */
export interface ReceivedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/**
 * Validates REST responses against the served OpenAPI document: every response a test receives
 * must be documented (path, method, status, media type), match its schema, carry the headers the
 * document marks required, and every documented header it carries must match its schema. A 405
 * answers a method the path lacks, so it is checked against the path's documented 405; a 304 must
 * be documented and have no body.
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

  /** Returns the documented path template, or null for routes outside the document (health, graphql, 404s, other methods). */
  templateFor(method: string, url: string): string | null {
    const path = url.split('?')[0]!;
    return this.#templates.find((t) => t.method === method.toLowerCase() && t.pattern.test(path))?.path ?? null;
  }

  /** The documented operation answering `method url` with `status` (any operation of the path for a 405), or null. */
  #operation(method: string, url: string, status: number): { template: string; method: string } | null {
    if (status !== 405) {
      const template = this.templateFor(method, url);
      return template ? { template, method: method.toLowerCase() } : null;
    }
    const path = url.split('?')[0]!;
    const found = this.#templates.find((t) => t.pattern.test(path));
    return found ? { template: found.path, method: found.method } : null;
  }

  #response(method: string, url: string, status: number): { where: string; template: string; method: string; response: DocResponse } | null {
    const operation = this.#operation(method, url, status);
    if (!operation) return null;
    const response = this.#doc.paths[operation.template]![operation.method]!.responses[String(status)];
    const where = `${method} ${operation.template} → ${status}`;
    expect(response, `${where} is not documented in openapi.json`).toBeDefined();
    return { where, ...operation, response: response! };
  }

  validate(method: string, url: string, status: number, contentType: string | undefined, body: unknown): void {
    const found = this.#response(method, url, status);
    if (!found) return;
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    const content = found.response.content?.[mediaType];
    expect(content, `${found.where} ${mediaType} is not documented`).toBeDefined();
    const pointer = ['paths', found.template, found.method, 'responses', String(status), 'content', mediaType, 'schema'];
    const validate = this.#compile(pointer);
    const ok = validate(body);
    expect(ok, `${method} ${url} → ${status} does not match openapi.json: ${this.#ajv.errorsText(validate.errors)}`).toBe(true);
  }

  /**
   * Checks a whole response: its body (JSON bodies, as `validate`), its headers, and for a 304 or
   * a 405 (HEAD included, which has no body) that the status is documented at all.
   */
  validateResponse(method: string, url: string, response: ReceivedResponse): void {
    const type = response.headers['content-type'] as string | undefined;
    const json = type?.includes('json') === true && response.body.length > 0;
    if (!json && response.statusCode !== 304 && response.statusCode !== 405) return;
    const found = this.#response(method, url, response.statusCode);
    if (!found) return;
    if (response.statusCode === 304) {
      expect(response.body, `${found.where} has a body`).toBe('');
      expect(found.response.content, `${found.where} documents a body`).toBeUndefined();
    }
    this.#validateHeaders(found.where, found.response, response.headers);
    if (json) this.validate(method, url, response.statusCode, type, JSON.parse(response.body));
  }

  #validateHeaders(where: string, documented: DocResponse, received: ReceivedResponse['headers']): void {
    for (const [name, declared] of Object.entries(documented.headers ?? {})) {
      const ref = declared.$ref?.startsWith('#/components/headers/') ? declared.$ref.slice('#/components/headers/'.length) : undefined;
      const header = ref === undefined ? declared : this.#doc.components?.headers?.[ref];
      expect(header, `${where}: header ${name} does not resolve`).toBeDefined();
      const value = received[name.toLowerCase()];
      if (value === undefined) {
        expect(header!.required !== true, `${where} lacks the required header ${name}`).toBe(true);
        continue;
      }
      if (header!.schema === undefined) continue;
      const pointer = ref === undefined ? undefined : ['components', 'headers', ref, 'schema'];
      const validate = pointer ? this.#compile(pointer) : this.#ajv.compile(header!.schema as object);
      const text = String(value);
      // Header values are text: an integer header is checked as the number it spells.
      const ok = validate(text) || (/^-?\d+$/.test(text) && validate(Number(text)));
      expect(ok, `${where}: header ${name}: ${text} does not match openapi.json: ${this.#ajv.errorsText(validate.errors)}`).toBe(true);
    }
  }

  #compile(pointer: string[]): ValidateFunction {
    const key = pointer.join('|');
    let validate = this.#cache.get(key);
    if (!validate) {
      const path = pointer.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
      validate = this.#ajv.compile({ $ref: `openapi.json#/${path}` });
      this.#cache.set(key, validate);
    }
    return validate;
  }
}
