import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonTextNestsDeeper } from '../../src/kernel/json-depth.ts';
import { MAX_JSON_DEPTH } from '../../src/kernel/limits.ts';
import { Census, createFuzzShop, fuzz, fuzzRuns, FUZZ_HINTS, sendRest } from '../helpers/fuzz/harness.ts';
import { describeRequest, operationsOf, requestsFor, type OpenApiDocument } from '../helpers/fuzz/openapi-requests.ts';
import { OpenApiValidator } from '../helpers/openapi-validator.ts';

/*
 * Rule (issue 11, "No 5xx from client input"; docs/api-conventions.md): whatever a
 * client sends to any route of the OpenAPI document — keyed or not, read or write key, another
 * shop's key, valid, boundary or adversarial values in the path, the query and the body — the
 * answer is not a 5xx, carries X-Request-Id, is problem+json when it is an error, and is a status,
 * media type and body the document lists for the operation. Bodies and query strings include values
 * nested past MAX_JSON_DEPTH (up to 8,000 levels), which once overflowed the stack (issue 17 item 11).
 *
 * CI: about 2,200 requests with a fixed seed (FUZZ_SEED to change it). Long run:
 *   FUZZ_RUNS=100000 npx vitest run test/reliability/fuzz-rest.test.ts
 * sends FUZZ_RUNS requests spread over the operations, counts every failure, and prints the census.
 */

const fs = await createFuzzShop('fuzz-rest');
afterAll(() => fs.t.close());
const doc = fs.t.app.swagger() as unknown as OpenApiDocument;
const operations = operationsOf(doc);
const { total, long } = fuzzRuns(80 * operations.length);
const perOperation = Math.max(1, Math.ceil(total / operations.length));
const census = new Census();

afterAll(() => {
  // The figure for docs/reliability.md: requests sent (shrinking included) and 5xx among them.
  console.log(census.summary(`REST fuzz (${operations.length} operations, ${perOperation} runs each)`));
});

describe('the REST fuzzer itself', () => {
  it('covers every operation of the served document (a new route is fuzzed without touching this file)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(27);
    expect(operations.map((o) => o.id)).toEqual(expect.arrayContaining(['PATCH /api/v1/raw-materials/{variantId}/inventory', 'GET /api/v1/work-orders']));
  });

  it(`sends bodies and query strings nested deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH}), up to 8,000 levels`, () => {
    const patch = operations.find((o) => o.id === 'PATCH /api/v1/raw-materials/{variantId}/inventory')!;
    const sample = fc.sample(requestsFor(patch, FUZZ_HINTS), { numRuns: 1000, seed: 7 });
    const deepBodies = sample.filter((r) => r.payload !== undefined && jsonTextNestsDeeper(r.payload, MAX_JSON_DEPTH));
    expect(deepBodies.length).toBeGreaterThan(10);
    expect(deepBodies.some((r) => jsonTextNestsDeeper(r.payload!, 7999))).toBe(true);
    const read = operations.find((o) => o.id === 'GET /api/v1/raw-materials')!;
    const urls = fc.sample(requestsFor(read, FUZZ_HINTS), { numRuns: 1000, seed: 7 }).map((r) => r.url);
    expect(urls.some((u) => u.includes('[a]'.repeat(33)))).toBe(true);
    expect(urls.some((u) => jsonTextNestsDeeper(decodeURIComponent(u.split('?')[1] ?? ''), MAX_JSON_DEPTH))).toBe(true);
  });

  it('fails on a response that does not conform to the document (the validator is not a no-op)', () => {
    const validator = new OpenApiValidator(doc);
    expect(() => validator.validate('GET', '/api/v1/locations', 200, 'application/json', { data: 'not a list' })).toThrow(/does not match openapi.json/);
    expect(() => validator.validate('GET', '/api/v1/locations', 418, 'application/json', {})).toThrow(/not documented/);
    expect(() => validator.validate('GET', '/api/v1/locations', 200, 'text/html', {})).toThrow(/not documented/);
  });
});

describe.each(operations.map((o) => [o.id, o] as const))('fuzz %s', (_id, operation) => {
  it(`${perOperation} generated requests: no 5xx, X-Request-Id, problem+json errors, every answer as documented`, async () => {
    const result = await fuzz({
      arbitrary: requestsFor(operation, FUZZ_HINTS),
      runs: perOperation,
      long,
      check: (request) => sendRest(fs, doc, request, census),
      describe: describeRequest,
    });
    expect(result.failed, result.report).toBe(false);
    const mine = [...census.examples].filter(([signature]) => signature.startsWith(`${operation.id} →`));
    expect(mine.map(([signature, repro]) => `${signature}\n  ${repro}`)).toEqual([]);
  }, long ? 3_600_000 : 120_000);
});
