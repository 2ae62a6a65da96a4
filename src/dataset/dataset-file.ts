import { checkDataset, elementShape, PLATFORM_SECTIONS, ROOT_SECTIONS, type RawObject, type SectionName, type Whole } from './dataset-check.ts';
import { workOrderShortIds, type SectionElements } from './dataset-rows.ts';
import { ExactNumber, exactNumberReviver } from './exact-number.ts';
import {
  arrayElements, DEFAULT_CHUNK_SIZE, FileByteSource, FileChangedError, JsonSyntaxError, newElementReading, outlineJson, readSpan,
  type ByteSource, type JsonMember, type JsonSpan,
} from './json-scan.ts';
import { Problems } from './problems.ts';
import { normalize, refTo, type PathRef } from './shape.ts';
import type { DatasetError, DatasetShop } from './types.ts';

// `bomcore load FILE` without reading FILE into memory. Three passes over the file:
//  1. syntax: the whole file must be well-formed JSON; where each section lies is noted;
//  2. validation: each section is streamed element by element through the same walk as an
//     in-memory dataset (dataset-check.ts), keeping only compact indexes; the bytes of each
//     section are hashed;
//  3. load (inside the transaction): each section is streamed again and turned into rows, in
//     batches; a section whose bytes no longer hash the same fails the load, so what is written
//     is exactly what was validated.

/** A dataset file that passed validation, ready to be loaded by loadDataset. */
export interface DatasetFile {
  readonly file: string;
  readonly size: number;
  readonly shop: DatasetShop;
  /** Elements per section, as validated. */
  readonly counts: ReadonlyMap<SectionName, number>;
  readonly workOrderShortIds: ReadonlyMap<string, string>;
  readonly cachedQuantityDefaults: ReadonlyMap<string, string>;
  /** @internal */
  readonly reader: SectionReader;
}

export type DatasetFileResult =
  | { ok: true; dataset: DatasetFile }
  | { ok: false; errors: DatasetError[]; problemCount: number };

export interface DatasetFileOptions {
  /** Bytes read at a time (tests use tiny chunks to cross every boundary). */
  chunkSize?: number;
  /** Problems kept per rule group; the rest are counted. Default 1000. */
  keepProblems?: number;
  onProgress?: (message: string) => void;
}

const toExactNumber = (text: string) => new ExactNumber(text);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Reports at most once a second (and the first time). */
function throttled(onProgress: ((message: string) => void) | undefined): (message: () => string, force?: boolean) => void {
  let last = 0;
  return (message, force = false) => {
    if (!onProgress) return;
    const now = Date.now();
    if (force || now - last >= 1000) {
      last = now;
      onProgress(message());
    }
  };
}

/** Reads the sections of an outlined file; remembers what each section's bytes hashed to. */
class SectionReader {
  readonly source: ByteSource & { close?(): void };
  readonly spans = new Map<SectionName, JsonSpan>();
  readonly digests = new Map<SectionName, string>();
  readonly chunkSize: number;

  constructor(source: ByteSource & { close?(): void }, chunkSize: number) {
    this.source = source;
    this.chunkSize = chunkSize;
  }

  /** Elements of a section's array, raw; the digest of its bytes is recorded at the end. */
  *elements(section: SectionName, span: JsonSpan, onRead?: (position: number) => void): Generator<unknown> {
    const reading = newElementReading();
    yield* arrayElements(this.source, span, reading, toExactNumber, this.chunkSize, onRead);
    this.digests.set(section, reading.hash.digest('hex'));
  }

  /** A member read whole, as JSON.parse with the exact-number reviver reads it. */
  whole(span: JsonSpan): unknown {
    return JSON.parse(readSpan(this.source, span), exactNumberReviver);
  }

  close(): void {
    this.source.close?.();
  }
}

/**
 * What stands where an array or object was expected, for the problem message (which names only
 * its kind): an empty value of that kind, so a huge one is never read whole.
 */
function standIn(member: JsonSpan): unknown {
  switch (member.kind) {
    case 'object': return {};
    case 'array': return [];
    case 'string': return '';
    case 'number': return toExactNumber('0');
    case 'boolean': return false;
    default: return null;
  }
}

function fileObject(reader: SectionReader, members: Record<string, JsonMember>, prefix: '' | 'platform.',
  onRead: (section: SectionName, position: number) => void): RawObject {
  const member = (key: string): JsonMember | undefined => (Object.hasOwn(members, key) ? members[key] : undefined);
  return {
    keys: () => Object.keys(members),
    value: (key) => {
      const m = member(key);
      return m ? reader.whole(m) : undefined;
    },
    list: (key) => {
      const m = member(key);
      if (!m) return { whole: undefined };
      if (m.kind !== 'array') return { whole: standIn(m) };
      const section = `${prefix}${key}` as SectionName;
      reader.spans.set(section, m);
      return { elements: reader.elements(section, m, (position) => onRead(section, position)) };
    },
    object: (key): RawObject | Whole => {
      const m = member(key);
      if (!m) return { whole: undefined };
      return m.kind === 'object' ? fileObject(reader, m.members!, 'platform.', onRead) : { whole: standIn(m) };
    },
  };
}

/**
 * Validates a dataset file with every rule of validateDataset, reading it in chunks: memory is
 * bounded by the indexes of ids the rules need, not by the file. Throws (ENOENT…) when the file
 * cannot be opened. A valid file stays open until it is loaded or closed ({@link closeDatasetFile}).
 */
export function validateDatasetFile(file: string, options: DatasetFileOptions = {}): DatasetFileResult {
  const source = new FileByteSource(file);
  let result: DatasetFileResult | undefined;
  try {
    result = validateSource(source, file, options);
    return result;
  } finally {
    if (!result?.ok) source.close();
  }
}

/** {@link validateDatasetFile} over any byte source (tests). */
export function validateSource(source: ByteSource & { close?(): void }, file: string, options: DatasetFileOptions = {}): DatasetFileResult {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const progress = throttled(options.onProgress);
  let outline;
  try {
    outline = outlineJson(source, { chunkSize, onProgress: (done, total) => progress(() => `validate: JSON syntax ${mib(done)}/${mib(total)} MiB`) });
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { ok: false, errors: [{ path: '$', message: `malformed JSON: ${error.message}` }], problemCount: 1 };
  }
  const reader = new SectionReader(source, chunkSize);
  const problems = new Problems(options.keepProblems ?? 1000);
  const root: RawObject | Whole = outline.members
    ? fileObject(reader, outline.members, '', (section, position) => progress(() => `validate: ${section} ${mib(position)}/${mib(source.size)} MiB`))
    : { whole: standIn(outline.root) };
  let outcome;
  try {
    outcome = checkDataset(root, problems, { collect: false });
  } catch (error) {
    if (!(error instanceof FileChangedError)) throw error;
    return { ok: false, errors: [{ path: '$', message: error.message }], problemCount: 1 };
  }
  if (problems.count > 0 || !outcome.shop) return { ok: false, errors: problems.list(), problemCount: problems.count };
  return {
    ok: true,
    dataset: {
      file,
      size: source.size,
      shop: outcome.shop,
      counts: outcome.counts,
      workOrderShortIds: workOrderShortIds(outcome.workOrderCreatedAt),
      cachedQuantityDefaults: outcome.cachedQuantityDefaults,
      reader,
    },
  };
}

export function closeDatasetFile(dataset: DatasetFile): void {
  dataset.reader.close();
}

const SECTIONS: SectionName[] = [...PLATFORM_SECTIONS.map((key) => `platform.${key}` as const), ...ROOT_SECTIONS];

/** A problem in a section that passed validation: only possible if the file changed since. */
const refuseChange = { push: (error: DatasetError) => { throw new FileChangedError(`${error.path}: ${error.message}`); } };

/**
 * The sections of a validated file, read again and normalised element by element, for the
 * loader. Throws (failing the load's transaction) if a section's bytes differ from what was
 * validated.
 */
export function* fileSections(dataset: DatasetFile, onProgress?: (message: string) => void): Generator<SectionElements> {
  const { reader } = dataset;
  const progress = throttled(onProgress);
  for (const section of SECTIONS) {
    const span = reader.spans.get(section);
    const total = dataset.counts.get(section) ?? 0;
    if (!span || total === 0) continue;
    const shape = elementShape(section);
    const here: PathRef | null = section.startsWith('platform.')
      ? refTo(refTo(null, 'platform'), section.slice('platform.'.length))
      : refTo(null, section);
    const expected = reader.digests.get(section);
    function* elements(): Generator<unknown> {
      const reading = newElementReading();
      let index = 0;
      for (const raw of arrayElements(reader.source, span!, reading, toExactNumber, reader.chunkSize)) {
        yield normalize(shape, raw, here, index, refuseChange);
        index++;
        progress(() => `load: ${section} ${index}/${total}`);
      }
      if (index !== total || reading.hash.digest('hex') !== expected) throw new FileChangedError(`${section} is not what was validated`);
      progress(() => `load: ${section} ${index}/${total}`, true);
    }
    yield { section, elements: elements() };
  }
}
