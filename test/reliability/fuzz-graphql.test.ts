import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonTextNestsDeeper } from '../../src/kernel/json-depth.ts';
import { MAX_JSON_DEPTH } from '../../src/kernel/limits.ts';
import { getSchema } from '../../schema/index.ts';
import { operationsFor, rawGraphqlBodies, rootFieldsOf } from '../helpers/fuzz/graphql-operations.ts';
import { Census, createFuzzShop, describeGraphql, fuzz, fuzzRuns, FUZZ_HINTS, sendGraphql } from '../helpers/fuzz/harness.ts';

/*
 * Rule (issue 11, "No 5xx from client input"; docs/graphql.md "Errors"): whatever is POSTed to
 * /graphql — an operation over any root field of the schema (queries, mutations, `_entities`) with
 * arguments of the right or wrong shape and adversarial strings and numbers, or a body that is no
 * GraphQL request at all (malformed, empty, a batch, over the size limit, `__proto__`) — keyed or
 * not, the answer is never a 5xx, always carries X-Request-Id, and no error has code INTERNAL.
 * Variables (in a POST body and in a GET's query string), `_entities` representations and whole
 * bodies include values nested past MAX_JSON_DEPTH, up to 8,000 levels (issue 17 items 11, 12).
 *
 * CI: about 1,500 requests with a fixed seed. Long run:
 *   FUZZ_RUNS=100000 npx vitest run test/reliability/fuzz-graphql.test.ts
 */

const fs = await createFuzzShop('fuzz-gql');
afterAll(() => fs.t.close());
const roots = rootFieldsOf(getSchema());
const { total, long } = fuzzRuns(20 * (roots.length + 12));
const perField = Math.max(1, Math.ceil(total / (roots.length + 12)));
const census = new Census();
afterAll(() => console.log(census.summary(`GraphQL fuzz (${roots.length} root fields, ${perField} runs each, ${perField * 12} raw bodies)`)));

describe('the GraphQL fuzzer itself', () => {
  it('covers every root field of the schema, _entities included', () => {
    const names = roots.map((r) => `${r.kind} ${r.name}`);
    expect(names).toEqual(expect.arrayContaining(['query _entities', 'query rawMaterials', 'mutation adjustRawMaterialInventory', 'mutation createWorkOrder']));
    expect(roots.length).toBeGreaterThan(60);
  });

  it(`sends _entities representations nested deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) in variables, over POST and GET, and unusable ones`, () => {
    const entities = roots.find((r) => r.name === '_entities')!;
    const sample = fc.sample(operationsFor(entities, FUZZ_HINTS), { numRuns: 600, seed: 7 });
    const text = (r: { body: string; method?: 'GET' }) => (r.method === 'GET' ? decodeURIComponent(r.body) : r.body);
    expect(sample.filter((r) => jsonTextNestsDeeper(text(r), MAX_JSON_DEPTH + 2)).length).toBeGreaterThan(5);
    expect(sample.some((r) => r.method === 'GET' && jsonTextNestsDeeper(text(r), MAX_JSON_DEPTH + 2))).toBe(true);
    expect(sample.some((r) => r.body.includes('"__typename":"Query"'))).toBe(true);
    const raw = fc.sample(rawGraphqlBodies, { numRuns: 600, seed: 7 });
    expect(raw.some((r) => jsonTextNestsDeeper(r.body, 7999))).toBe(true);
  });
});

describe.each(roots.map((r) => [`${r.kind} ${r.name}`, r] as const))('fuzz %s', (_name, root) => {
  it(`${perField} generated operations: no 5xx, no INTERNAL, X-Request-Id`, async () => {
    const result = await fuzz({
      arbitrary: operationsFor(root, FUZZ_HINTS), runs: perField, long,
      check: (request) => sendGraphql(fs, request, census), describe: describeGraphql,
    });
    expect(result.failed, result.report).toBe(false);
    const mine = [...census.examples].filter(([signature]) => signature.startsWith(`${root.kind} ${root.name} →`));
    expect(mine.map(([signature, repro]) => `${signature}\n  ${repro}`)).toEqual([]);
  }, long ? 3_600_000 : 120_000);
});

describe('raw bodies', () => {
  it(`${perField * 12} bodies that are no GraphQL request (malformed, empty, batches, huge, __proto__): no 5xx, no INTERNAL`, async () => {
    const result = await fuzz({
      arbitrary: rawGraphqlBodies, runs: perField * 12, long,
      check: (request) => sendGraphql(fs, request, census), describe: describeGraphql,
    });
    expect(result.failed, result.report).toBe(false);
    const mine = [...census.examples].filter(([signature]) => signature.startsWith('raw body →'));
    expect(mine.map(([signature, repro]) => `${signature}\n  ${repro}`)).toEqual([]);
  }, long ? 3_600_000 : 120_000);
});
