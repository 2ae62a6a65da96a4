import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.ts';
import { closeDatasetFile, fileSections, validateDatasetFile, validateSource, type DatasetFile } from '../../src/dataset/dataset-file.ts';
import { datasetSections, rowBatches, rowsPerBatch, workOrderShortIds, type RowTarget } from '../../src/dataset/dataset-rows.ts';
import { ExactNumber, exactNumberReviver } from '../../src/dataset/exact-number.ts';
import { exportDataset } from '../../src/dataset/export.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import {
  arrayElements, BufferByteSource, JsonSyntaxError, newElementReading, outlineJson, type ByteSource,
} from '../../src/dataset/json-scan.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { parseDatasetText, validateDataset } from '../../src/dataset/parse.ts';
import { serializeDataset } from '../../src/dataset/serialize.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { BIN } from '../cli/run-cli.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { databaseLabel, openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';

// `bomcore load FILE` streams the file: a syntax pass, a validation pass and a load pass, each
// reading the file in chunks. These tests hold the streamed path to the rules of the in-memory one
// (dataset-parse.test.ts also runs every validation case through it) and to bounded memory.

const work = mkdtempSync(join(tmpdir(), 'bomcore-stream-'));
const bytes = (text: string) => new BufferByteSource(Buffer.from(text));
const exact = (text: string) => new ExactNumber(text);

/** What JSON.parse with the exact-number reviver makes of the elements of the array at the root. */
function elementsOf(text: string, chunkSize: number): unknown[] {
  const source = bytes(text);
  const outline = outlineJson(source, { chunkSize });
  return [...arrayElements(source, outline.root, newElementReading(), exact, chunkSize)];
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('reading JSON in chunks', () => {
  it('the syntax pass accepts exactly what JSON.parse accepts, whatever the chunk size', () => {
    const samples = ['{}', '[]', '-0', '1.5e+3', '"a\\u00e9\\n"', 'true', ' null ', '{"a":[1,{"b":"}"}]}', '{"a":1,}', '[1,]', '01', '1.',
      '-', '1e', '"\\x"', '"a\nb"', '{"a" 1}', 'tru', '', ' ', '[1]]', '{"a":1}{', '"\\u12G4"', '[-01]', '\ufeff{}'];
    for (const text of samples) {
      for (const chunkSize of [1, 2, 3, 5, 64]) {
        let accepted = true;
        try {
          outlineJson(bytes(text), { chunkSize });
        } catch (error) {
          expect(error).toBeInstanceOf(JsonSyntaxError);
          accepted = false;
        }
        expect(accepted, `${JSON.stringify(text)} in chunks of ${chunkSize}`).toBe(isValidJson(text));
      }
    }
  });

  it('property: JSON text with one character changed is accepted by the syntax pass exactly when JSON.parse accepts it', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom(...'{}[]",:\\ 0-.eE+tfnu\n'), fc.integer({ min: 1, max: 9 }),
      (value, at, replacement, chunkSize) => {
        const text = JSON.stringify(value, null, at % 3);
        const position = at % (text.length + 1);
        const changed = text.slice(0, position) + replacement + text.slice(position + 1);
        let accepted = true;
        try {
          outlineJson(bytes(changed), { chunkSize });
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(isValidJson(changed));
      }), { numRuns: 500 });
  });

  it('property: array elements come out as JSON.parse with the exact-number reviver makes them, across every chunk boundary', () => {
    fc.assert(fc.property(fc.array(fc.jsonValue()), fc.integer({ min: 1, max: 17 }), (list, chunkSize) => {
      const text = JSON.stringify(list, null, chunkSize % 2 === 0 ? 1 : 0);
      expect(elementsOf(text, chunkSize)).toEqual(JSON.parse(text, exactNumberReviver));
    }), { numRuns: 300 });
  });

  it('numbers keep their source text, strings their escapes and multi-byte characters, split anywhere', () => {
    const text = '[{"q": 0.10, "big": 12345678901234.123456, "e": -1.5E-3}, "é∑😀\\u00e9\\"\\\\", [true, false, null]]';
    for (const chunkSize of [1, 2, 3, 4, 7, 1024]) {
      const [first, second, third] = elementsOf(text, chunkSize) as [Record<string, ExactNumber>, string, unknown[]];
      expect([first.q!.source, first.big!.source, first.e!.source]).toEqual(['0.10', '12345678901234.123456', '-1.5E-3']);
      expect(second).toBe('é∑😀é"\\');
      expect(third).toEqual([true, false, null]);
    }
  });

  it('a member named __proto__ is an own member (as JSON.parse makes it), not the prototype', () => {
    const [element] = elementsOf('[{"__proto__": {"x": 1}, "a": 2}]', 3) as [Record<string, unknown>];
    expect(Object.hasOwn(element, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(element)).toBe(Object.prototype);
  });

  it('malformed JSON names its line and column', () => {
    expect(() => outlineJson(bytes('{\n  "a": [1,\n  2 3]\n}'))).toThrow('unexpected \'3\' where \',\' or \']\' should be at line 3, column 5');
    expect(() => outlineJson(bytes('{"a": 1'))).toThrow('unexpected end of input');
  });
});

describe('bomcore load validates a streamed file with every rule', () => {
  const valid = () => datasetJson('stream-rules');
  const fileErrors = (text: string, options = {}) => {
    const result = validateSource(bytes(text), 'test.json', { chunkSize: 5, ...options });
    return result.ok ? [] : result.errors;
  };
  const memoryErrors = (text: string) => {
    const result = parseDatasetText(text);
    return result.ok ? [] : result.errors;
  };

  it('sections may come in any order: the file is read section by section in the order of the format', () => {
    const json = valid();
    const reversed = Object.fromEntries(Object.entries(json).reverse());
    reversed['platform'] = Object.fromEntries(Object.entries(json['platform'] as object).reverse());
    const result = validateSource(bytes(JSON.stringify(reversed)), 'reversed.json', { chunkSize: 5 });
    expect(result.ok).toBe(true);
    const broken = { ...reversed, boms: [{ ...(json['boms'] as object[])[0], rawMaterialReferences: [{ nodeId: '44999', quantity: 1 }] }] };
    expect(fileErrors(JSON.stringify(broken))).toEqual([{ path: '$.boms[0].rawMaterialReferences[0].nodeId', message: 'unknown material "44999"' }]);
  });

  it.each([
    ['a root that is not an object', '[]'],
    ['a root that is a number', '12'],
    ['unknown top-level members and a section that is not an array', JSON.stringify({ ...datasetJson('x'), extra: 1, materials: { a: 1 }, flows: 'none' })],
    ['a platform that is not an object', JSON.stringify({ ...datasetJson('x'), platform: [1] })],
    ['platform lists of the wrong type and an unknown platform member', JSON.stringify({ ...datasetJson('x'), platform: { locations: 'x', odd: 1 } })],
    ['a section given twice (the last one counts, as in JSON.parse)', JSON.stringify(datasetJson('x')).replace('"flows":', '"flows":[{"flowId":""}],"flows":')],
    ['a missing shop and formatVersion', JSON.stringify({ ...datasetJson('x'), shop: undefined, formatVersion: undefined })],
  ])('%s is refused as the in-memory validator refuses it', (_case, text) => {
    expect(fileErrors(text)).toEqual(memoryErrors(text));
  });

  it('malformed JSON is one problem at $ and nothing else is checked', () => {
    expect(fileErrors('{"formatVersion": 1,')).toEqual([{ path: '$', message: expect.stringMatching(/^malformed JSON: unexpected end of input/) }]);
  });

  it('a file with many problems keeps the first ones and counts them all', () => {
    const json = valid() as any;
    json.flows = Array.from({ length: 50 }, (_, i) => ({ flowId: `f${i}`, name: 1 }));
    const result = validateSource(bytes(JSON.stringify(json)), 'many.json', { keepProblems: 10 });
    expect(result).toMatchObject({ ok: false, problemCount: 50 });
    expect((result as { errors: unknown[] }).errors).toEqual(memoryErrors(JSON.stringify(json)).slice(0, 10));
  });
});

/** A generated shop written as a file. */
function writeGenerated(name: string, options: Parameters<typeof generateDataset>[0]): { file: string; dataset: Dataset } {
  const dataset = generateDataset(options);
  const file = join(work, name);
  writeFileSync(file, serializeDataset(dataset));
  return { file, dataset };
}

describe('rows go to the database in bounded batches', () => {
  const rowCounts = (batches: Iterable<{ target: RowTarget; rows: unknown[][] }>) => {
    const counts = new Map<RowTarget, number>();
    for (const batch of batches) {
      expect(batch.rows.length).toBeGreaterThan(0);
      expect(batch.rows.length).toBeLessThanOrEqual(rowsPerBatch(batch.target));
      counts.set(batch.target, (counts.get(batch.target) ?? 0) + batch.rows.length);
    }
    return counts;
  };

  it('no batch holds more rows than its bound, a streamed file gives the rows of its dataset, and rows flow before the file is read', () => {
    const { file, dataset } = writeGenerated('batches.json', { materials: 3000, boms: 300, depth: 3, locations: 4, workOrders: 80, orders: 200, seed: 3, shopId: 'batches' });
    const checked = validateDatasetFile(file, { chunkSize: 4096 });
    expect(checked.ok).toBe(true);
    const streamed = (checked as { dataset: DatasetFile }).dataset;
    try {
      const context = { shopId: 'batches', loadedAt: new Date(0), cachedQuantityDefaults: new Map<string, string>() };
      const fromMemory = rowCounts(rowBatches(datasetSections(dataset), {
        ...context, workOrderShortIds: workOrderShortIds(dataset.workOrders.map((w) => [w.createdAt, w.workOrderId])),
      }));
      expect(fromMemory.get('materials:platform')! + fromMemory.get('materials')!).toBe(3000);
      expect(Math.max(...fromMemory.values())).toBeGreaterThan(rowsPerBatch('platform_levels'));

      // The first batch arrives after a small part of the file has been read again.
      let read = 0;
      const source = streamed.reader.source;
      const counting: ByteSource = { size: source.size, read: (...args) => { const n = source.read(...args); read += n; return n; } };
      (streamed.reader as { source: ByteSource }).source = counting;
      const batches = rowBatches(fileSections(streamed), { ...context, workOrderShortIds: streamed.workOrderShortIds });
      const first = batches.next();
      expect(first.done).toBe(false);
      expect(read).toBeLessThan(source.size / 4);
      const fromFile = rowCounts([first.value as { target: RowTarget; rows: unknown[][] }, ...batches]);
      (streamed.reader as { source: ByteSource }).source = source;
      expect(fromFile).toEqual(fromMemory);
    } finally {
      closeDatasetFile(streamed);
    }
  });
});

describe(`streamed load on ${databaseLabel}`, () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await openTestOrm();
  });
  afterAll(() => orm.close());

  const validFile = (file: string): DatasetFile => {
    const checked = validateDatasetFile(file, { chunkSize: 1000 });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors.slice(0, 5)));
    return checked.dataset;
  };
  const loadFile = async (file: string) => {
    const dataset = validFile(file);
    try {
      return await loadDataset(orm.em, dataset);
    } finally {
      closeDatasetFile(dataset);
    }
  };

  it('a streamed file loads the same state as its dataset in memory; loading it twice gives the same state; its export loads back to the same export', async () => {
    const shopId = uniqueShopId('stream-same');
    const { file, dataset } = writeGenerated('same.json', { materials: 400, boms: 60, depth: 3, locations: 3, workOrders: 30, orders: 30, seed: 11, shopId });
    await loadDataset(orm.em, dataset);
    const fromMemory = serializeDataset(await exportDataset(orm.em, shopId));
    const report = await loadFile(file);
    expect(report.rows['materials']).toBe(400);
    const fromFile = serializeDataset(await exportDataset(orm.em, shopId));
    expect(fromFile).toBe(fromMemory);
    await loadFile(file);
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(fromFile);
    const exported = join(work, 'same-export.json');
    writeFileSync(exported, fromFile);
    await loadFile(exported);
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(fromFile);
  });

  it('a platform-linked material that omits cachedQuantity gets the sum of its variant\'s levels when streamed too', async () => {
    const shopId = uniqueShopId('stream-cached');
    const file = join(work, 'cached.json');
    writeFileSync(file, JSON.stringify(datasetJson(shopId)));
    await loadFile(file);
    const exported = await exportDataset(orm.em, shopId);
    // 40 + 3 at the two locations of variant 44001.
    expect(exported.materials.find((m) => m.variantId === '44001')).toMatchObject({ cachedQuantity: '43', unit: 'kg' });
    expect(exported.materials).toEqual((validateDataset(datasetJson(shopId)) as { dataset: Dataset }).dataset.materials);
  });

  it('one transaction: a file that changes between validation and load writes nothing', async () => {
    const shopId = uniqueShopId('stream-changed');
    const file = join(work, 'changed.json');
    writeFileSync(file, JSON.stringify(datasetJson(shopId), null, 2));
    await loadFile(file);
    const before = serializeDataset(await exportDataset(orm.em, shopId));
    const renamed = datasetJson(shopId) as any;
    renamed.shop.name = 'Renamed';
    writeFileSync(file, JSON.stringify(renamed, null, 2));
    const dataset = validFile(file);
    // Same length, other bytes: what would be written is not what was validated.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"Cotton wick"', '"Cotton rope"'));
    await expect(loadDataset(orm.em, dataset)).rejects.toThrow(/changed/);
    closeDatasetFile(dataset);
    expect(serializeDataset(await exportDataset(orm.em, shopId))).toBe(before);
  });
});

/** Runs the real CLI and returns its exit code and peak resident set size (kB). */
function runMeasured(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; peakKb: number; stderr: string }> {
  const report = 'data:text/javascript,process.on("exit",()=>process.stderr.write("\\npeak-rss-kb "+process.resourceUsage().maxRSS+"\\n"))';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', report, BIN, ...args], { env: { ...process.env, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, peakKb: Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? Number.NaN) }));
  });
}

describe(`bomcore load in bounded memory on ${databaseLabel}`, () => {
  // Peak RSS of `bomcore load` (20 locations; 5k materials = 6 MB, 20k = 23 MB), measured:
  //                 whole-file loader         streaming loader
  //   PostgreSQL    285 MB → 415 MB (+130)    225 MB → 241 MB (+17)
  //   PGlite        1076 MB → 1174 MB (+98)   992 MB → 1003 MB (+11)
  // (Most of PGlite's is its WebAssembly heap, whose buffer pool fills whatever the loader does.)
  const generated = (materials: number) => writeGenerated(`${materials}.json`, {
    materials, boms: materials / 10, depth: 5, locations: 20, workOrders: materials / 40, orders: materials / 10, seed: 7, shopId: uniqueShopId('stream-rss'),
  });

  it('memory does not grow with the file: a file four times larger (5k → 20k materials) raises peak RSS by less than 50 MB', async () => {
    const env = usingPostgres ? {} : { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(work, 'pglite') };
    expect((await runMeasured(['migrate'], env)).code).toBe(0);
    const peaks: number[] = [];
    for (const materials of [5_000, 20_000]) {
      const { file } = generated(materials);
      const load = await runMeasured(['load', file], env);
      expect(load.code, load.stderr).toBe(0);
      const count = materials.toLocaleString('en-US');
      expect(load.stderr).toMatch(new RegExp(`^loading materials: ${count} / ${count} rows \\(100%\\)$`, 'm'));
      peaks.push(load.peakKb / 1024);
    }
    const [small, large] = peaks as [number, number];
    expect(large - small, `peak RSS ${Math.round(small)} MB → ${Math.round(large)} MB`).toBeLessThan(50);
  }, 300_000);
});
