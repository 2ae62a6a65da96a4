import { describe, expect, it } from 'vitest';
import { STRING_LIMITS } from '../../src/kernel/limits.ts';
import { validateDataset } from '../../src/dataset/parse.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';

// Rule: a dataset file holds the same text as the API accepts: no NUL or lone surrogate anywhere
// (ids included), and each text field within the maximum of its kind (src/kernel/limits.ts), refused by
// validation with its JSONPath before anything reaches the database.

function errorsOf(json: unknown) {
  const result = validateDataset(json);
  expect(result.ok).toBe(false);
  return (result as unknown as { errors: { path: string; message: string }[] }).errors;
}

describe('dataset text fields', () => {
  it('the fixture is valid as it is', () => {
    expect(validateDataset(materialShop('ds-ok')).ok).toBe(true);
  });

  it.each([
    ['a virtual material name', (j: any) => { j.materials[2].productName = 'Wick\u0000'; }, '$.materials[2].productName'],
    ['an id', (j: any) => { j.materials[2].variantId = 'VMAT-VAR-\u0000'; }, '$.materials[2].variantId'],
    ['a platform variant title', (j: any) => { j.platform.variants[0].productName = '\u0000'; }, '$.platform.variants[0].productName'],
    ['a location name', (j: any) => { j.platform.locations[0].name = 'A\u0000'; }, '$.platform.locations[0].name'],
    ['the shop id', (j: any) => { j.shop.id = 'shop\u0000'; }, '$.shop.id'],
  ])('NUL in %s is refused with its path', (_label, mutate, path) => {
    const json = materialShop('ds-nul') as any;
    mutate(json);
    expect(errorsOf(json)).toContainEqual({ path, message: expect.stringContaining('NUL') });
  });

  it('a lone surrogate is refused with its path', () => {
    const json = materialShop('ds-sur') as any;
    json.materials[2].vendor = 'a\ud800';
    expect(errorsOf(json)).toContainEqual({ path: '$.materials[2].vendor', message: expect.stringContaining('lone surrogate') });
  });

  it.each([
    ['productName', 'name', (j: any, v: string) => { j.materials[2].productName = v; }, '$.materials[2].productName'],
    ['sku', 'label', (j: any, v: string) => { j.materials[2].sku = v; }, '$.materials[2].sku'],
    ['imageUrl', 'url', (j: any, v: string) => { j.materials[2].imageUrl = v; }, '$.materials[2].imageUrl'],
    ['a location name', 'name', (j: any, v: string) => { j.platform.locations[0].name = v; }, '$.platform.locations[0].name'],
    ['a platform productName', 'name', (j: any, v: string) => { j.platform.variants[0].productName = v; }, '$.platform.variants[0].productName'],
  ] as const)('%s: the %s maximum is accepted, one more character is refused with its path', (_label, kind, set, path) => {
    const max = STRING_LIMITS[kind];
    const ok = materialShop('ds-len') as any;
    set(ok, '😀'.repeat(max));
    expect(validateDataset(ok).ok).toBe(true);
    const over = materialShop('ds-len') as any;
    set(over, 'x'.repeat(max + 1));
    expect(errorsOf(over)).toContainEqual({ path, message: `must be at most ${max} characters, got ${max + 1}` });
  });

  it('datasetJson fixtures stay valid', () => {
    expect(validateDataset(datasetJson('ds-base')).ok).toBe(true);
  });
});
