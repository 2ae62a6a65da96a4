import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * REST response descriptions come from the GraphQL schema (rest-facade/derive-schema.ts): a Pothos
 * field's description is its REST property's. The rule "every property of a REST response schema has a
 * description" does not hold yet: about two thirds of the properties (names such as `productName`,
 * `sku`, `page`) have none, and neither do the hand-written envelope parts (Meta, Problem). So the rule
 * is asserted over the set that must: every property the hand-written REST contract described before
 * the derivation, plus every one described since, listed in openapi-described-properties.json. The list
 * may grow (add a property once its field has a description); a listed property never loses it.
 *
 * A property is named by the component that holds it (`RawMaterial.productId`), nested inline objects by
 * their path below it, `[]` for list items (`GetRawMaterialWorkOrderAllocationData.levels[].holders[].status`).
 */
const MUST_BE_DESCRIBED: string[] = JSON.parse(readFileSync(new URL('./openapi-described-properties.json', import.meta.url), 'utf8'));

type Json = Record<string, any>;

/** Every property of every response schema of the document, by name, with its description (if any). */
function responseProperties(doc: Json): Map<string, string | undefined> {
  const components: Json = doc.components?.schemas ?? {};
  const out = new Map<string, string | undefined>();
  const seen = new Set<string>();
  const resolve = (s: Json | undefined): Json | undefined => (s?.$ref ? components[String(s.$ref).split('/').pop()!] : s);
  // A property's own description, else (a $ref or a nullable union of one) its component's.
  const described = (v: Json): string | undefined =>
    v.description ?? resolve(v)?.description ?? (v.anyOf ?? []).map(resolve).find((x: Json | undefined) => x?.description)?.description;
  const visit = (schema: Json | undefined, path: string): void => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.$ref) {
      const name = String(schema.$ref).split('/').pop()!;
      if (seen.has(name)) return;
      seen.add(name);
      visit(components[name], name);
      return;
    }
    for (const [key, value] of Object.entries<Json>(schema.properties ?? {})) {
      out.set(`${path}.${key}`, described(value));
      visit(value, `${path}.${key}`);
    }
    if (schema.items) visit(schema.items, `${path}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf']) for (const member of schema[key] ?? []) visit(member, path);
  };
  for (const [url, operations] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        for (const content of Object.values<Json>(response.content ?? {})) visit(content.schema, `${method.toUpperCase()} ${url} ${status}`);
      }
    }
  }
  return out;
}

let t: TestApp;
let properties: Map<string, string | undefined>;

beforeAll(async () => {
  t = await createTestApp();
  properties = responseProperties((await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json());
});
afterAll(async () => t?.close());

describe('REST response descriptions (served OpenAPI document)', () => {
  it('every property of a REST response schema that must have a description has one (the described-properties list)', () => {
    const missing = MUST_BE_DESCRIBED.filter((name) => !properties.has(name));
    expect(missing, 'listed properties the document no longer has: update openapi-described-properties.json').toEqual([]);
    const undescribed = MUST_BE_DESCRIBED.filter((name) => !properties.get(name));
    expect(undescribed, 'give these Pothos fields (schema/types) their description back').toEqual([]);
  });

  it('the described-properties list names every property the document describes, once and sorted (so it only grows)', () => {
    const described = [...properties].filter(([, description]) => description).map(([name]) => name).sort();
    const unlisted = described.filter((name) => !MUST_BE_DESCRIBED.includes(name));
    expect(unlisted, 'described properties missing from openapi-described-properties.json: add them').toEqual([]);
    expect(MUST_BE_DESCRIBED).toEqual([...new Set(MUST_BE_DESCRIBED)].sort());
  });
});
