import { writeFile } from 'node:fs/promises';
import v8 from 'node:v8';
import { closeDatasetFile, validateDatasetFile, type DatasetFileResult } from '../modules/dataset/dataset-file.ts';
import { exportDataset } from '../modules/dataset/export.ts';
import { importDataset } from '../modules/dataset/import.ts';
import { serializeDataset } from '../modules/dataset/serialize.ts';
import { migrate } from '../db/orm.ts';
import { nonNegativeInt, parse, requiredString, UsageError } from './args.ts';
import { withDatabase } from './database.ts';
import { Progress } from './progress.ts';

const progress = (message: string) => process.stderr.write(`${message}\n`);

/** A refused file lists at most this many problems (and counts the rest). */
const SHOWN_PROBLEMS = 200;

export async function migrateCommand(args: string[]): Promise<void> {
  parse(args, {});
  await withDatabase(async (orm) => {
    const applied = await migrate(orm);
    progress(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
  }, { migrate: false });
}

/**
 * `bomcore load` streams: what it keeps is a few indexes of ids, and everything else it allocates
 * is short-lived. V8 sizes its heap for bursts instead: its young generation doubles (to 130 MB
 * here), and old garbage may pile up to several times the live objects before a full collection;
 * at 100k materials that took the process from about 270 MB to about 400 MB. These two settings
 * keep the heap near its live objects, at a cost in garbage-collection time of a few percent.
 * They are process-wide, which suits a command that does nothing else.
 */
function keepHeapNearLiveSet(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1'); // the young generation keeps the size it has
  v8.setFlagsFromString('--heap-growing-percent=50'); // a full collection once the old generation grew by half
}

export async function loadCommand(args: string[]): Promise<void> {
  const { positionals } = parse(args, {}, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('FILE is required: bomcore load FILE');
  keepHeapNearLiveSet();
  const started = Date.now();
  // A bar on a terminal, plain lines in CI or a pipe (src/cli/progress.ts).
  const bar = new Progress();
  // The file is streamed, never held whole: validated in one pass, loaded in another.
  let checked: DatasetFileResult;
  try {
    checked = validateDatasetFile(file, {
      onProgress: (message) => bar.message(message),
      keepProblems: SHOWN_PROBLEMS,
    });
  } catch (error) {
    bar.finish();
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new UsageError(`cannot read ${file}: ${code}`);
    throw error;
  }
  bar.finish();
  if (!checked.ok) {
    const shown = checked.errors.slice(0, SHOWN_PROBLEMS);
    for (const e of shown) process.stderr.write(`${e.path}: ${e.message}\n`);
    if (checked.problemCount > shown.length) process.stderr.write(`… and ${checked.problemCount - shown.length} more\n`);
    process.stderr.write(`${file} was refused: ${checked.problemCount} problem(s); nothing was written\n`);
    process.exitCode = 1;
    return;
  }
  const dataset = checked.dataset;
  const records = [...dataset.counts.values()].reduce((a, b) => a + b, 0);
  progress(`validated ${file} (${(dataset.size / 1024 / 1024).toFixed(1)} MiB, ${records} records) in ${Date.now() - started} ms`);
  try {
    await withDatabase(async (orm, config) => {
      const loadStarted = Date.now();
      let report;
      try {
        report = await importDataset({ orm, config }, dataset, (message) => bar.message(message));
      } finally {
        bar.finish();
      }
      for (const [table, rows] of Object.entries(report.rows)) progress(`${table}: ${rows} rows`);
      const total = Object.values(report.rows).reduce((a, b) => a + b, 0);
      progress(`loaded shop ${report.shopId}: ${total} rows in ${Date.now() - loadStarted} ms`);
    });
  } finally {
    closeDatasetFile(dataset);
  }
}

export async function exportCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, out: { type: 'string' } });
  const shopId = requiredString(values.shop, '--shop');
  const bar = new Progress();
  await withDatabase(async (orm) => {
    try {
      const dataset = await exportDataset(orm.em, shopId, (read, tables) => bar.update('export', `shop ${shopId}`, read, tables, 'tables'));
      bar.step('export', 'serialising');
      const text = serializeDataset(dataset);
      bar.step('export', `writing ${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MiB to ${values.out ?? 'stdout'}`);
      if (values.out) await writeFile(values.out, text);
      else await new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
    } finally {
      bar.finish();
    }
    if (values.out) progress(`wrote ${values.out}`);
  });
}

export async function generateCommand(args: string[]): Promise<void> {
  const { values } = parse(args, {
    materials: { type: 'string' }, boms: { type: 'string' }, depth: { type: 'string' }, locations: { type: 'string' },
    'work-orders': { type: 'string' }, orders: { type: 'string' }, seed: { type: 'string' }, shop: { type: 'string' }, out: { type: 'string' },
  });
  const options = {
    materials: nonNegativeInt(values.materials, '--materials', 200),
    boms: nonNegativeInt(values.boms, '--boms', 50),
    depth: nonNegativeInt(values.depth, '--depth', 3),
    locations: nonNegativeInt(values.locations, '--locations', 3),
    workOrders: nonNegativeInt(values['work-orders'], '--work-orders', 40),
    orders: nonNegativeInt(values.orders, '--orders', 40),
    seed: nonNegativeInt(values.seed, '--seed', 1),
    ...(values.shop ? { shopId: values.shop } : {}),
  };
  if (options.locations < 1) throw new UsageError('--locations must be at least 1');
  const { generateDataset } = await import('../modules/dataset/generate.ts');
  const bar = new Progress();
  let text: string;
  try {
    const dataset = generateDataset({ ...options, onProgress: (phase, done, total) => bar.update('generate', phase, done, total) });
    bar.step('generate', 'serialising');
    text = serializeDataset(dataset);
  } finally {
    bar.finish();
  }
  if (values.out) {
    await writeFile(values.out, text);
    progress(`wrote ${values.out} (${(text.length / 1024 / 1024).toFixed(1)} MiB)`);
  } else {
    process.stdout.write(text);
  }
}
