import { accessSync, constants, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import v8 from 'node:v8';
import type { DatasetFileResult } from '../dataset/dataset-file.ts';
import { nonNegativeInt, parse, positiveInt, requiredString, UsageError } from './args.ts';
import { Progress } from './progress.ts';

// Each command parses its arguments first and imports what it works with only then: a usage
// error, or `export` sent to a running server, loads neither the ORM nor the dataset modules.

const progress = (message: string) => process.stderr.write(`${message}\n`);

/** A refused file lists at most this many problems (and counts the rest). */
const SHOWN_PROBLEMS = 200;

/** What is wrong with a file the user named, in their words (`no such file: shop.json`). */
function fileProblem(file: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT': return `no such file: ${file}`;
    case 'EISDIR': return `${file} is a directory, not a dataset file`;
    case 'EACCES': case 'EPERM': return `cannot read ${file}: permission denied`;
    default: return `cannot read ${file}: ${error.code ?? error.message}`;
  }
}

/** Refuses a file that cannot be read before anything is loaded. */
function checkReadable(file: string): void {
  try {
    if (statSync(file).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    accessSync(file, constants.R_OK);
  } catch (error) {
    throw new UsageError(fileProblem(file, error as NodeJS.ErrnoException));
  }
}

export async function migrateCommand(args: string[]): Promise<void> {
  parse(args, {});
  const [{ withDatabase }, { migrate }] = await Promise.all([import('./database.ts'), import('../db/orm.ts')]);
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
  checkReadable(file);
  const [{ closeDatasetFile, validateDatasetFile }, { importDataset }, { withDatabase }, { contextDeps }] = await Promise.all([
    import('../dataset/dataset-file.ts'), import('../dataset/import.ts'), import('./database.ts'), import('../app/composition.ts'),
  ]);
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
    if ((error as NodeJS.ErrnoException).code) throw new UsageError(fileProblem(file, error as NodeJS.ErrnoException));
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
        report = await importDataset(contextDeps(orm, config), dataset, (message) => bar.message(message));
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
  const [{ loadConfig }, { answerBody, onRunningServer }] = await Promise.all([import('../kernel/config.ts'), import('./admin-client.ts')]);
  const write = async (text: string | Buffer) => {
    if (values.out) await writeFile(values.out, text);
    else await new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
  };
  // While `bomcore serve` holds the embedded database, the server exports (src/cli/admin-socket.ts).
  await onRunningServer(loadConfig(), { method: 'GET', path: `/shops/${encodeURIComponent(shopId)}/dataset` },
    (answer) => write(answerBody(answer)), () => exportLocally(shopId, values.out, write));
  if (values.out) progress(`wrote ${values.out}`);
}

async function exportLocally(shopId: string, out: string | undefined, write: (text: string) => Promise<void>): Promise<void> {
  const [{ exportDataset }, { serializeDataset }, { withDatabase }] = await Promise.all([
    import('../dataset/export.ts'), import('../dataset/serialize.ts'), import('./database.ts'),
  ]);
  const bar = new Progress();
  await withDatabase(async (orm) => {
    try {
      const dataset = await exportDataset(orm.em, shopId, (read, tables) => bar.update('export', `shop ${shopId}`, read, tables, 'tables'));
      bar.step('export', 'serialising');
      const text = serializeDataset(dataset);
      bar.step('export', `writing ${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MiB to ${out ?? 'stdout'}`);
      await write(text);
    } finally {
      bar.finish();
    }
  });
}

export async function generateCommand(args: string[]): Promise<void> {
  const { values } = parse(args, {
    materials: { type: 'string' }, boms: { type: 'string' }, depth: { type: 'string' }, locations: { type: 'string' },
    'work-orders': { type: 'string' }, orders: { type: 'string' }, seed: { type: 'string' }, shop: { type: 'string' }, out: { type: 'string' },
  });
  const options = {
    materials: positiveInt(values.materials, '--materials', 200),
    boms: nonNegativeInt(values.boms, '--boms', 50),
    depth: nonNegativeInt(values.depth, '--depth', 3),
    locations: positiveInt(values.locations, '--locations', 3),
    workOrders: nonNegativeInt(values['work-orders'], '--work-orders', 40),
    orders: nonNegativeInt(values.orders, '--orders', 40),
    seed: nonNegativeInt(values.seed, '--seed', 1),
    ...(values.shop ? { shopId: values.shop } : {}),
  };
  const [{ generateDataset }, { serializeDataset }] = await Promise.all([import('../dataset/generate.ts'), import('../dataset/serialize.ts')]);
  const bar = new Progress();
  let text: string;
  try {
    // A phase with nothing to make (--orders 0) is not reported as "0 / 0 items".
    const onProgress = (phase: string, done: number, total: number) => (total > 0 ? bar.update('generate', phase, done, total) : undefined);
    const dataset = generateDataset({ ...options, onProgress });
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
