import { readFile, writeFile } from 'node:fs/promises';
import { exportDataset } from '../modules/dataset/export.ts';
import { importDataset } from '../modules/dataset/import.ts';
import { parseDatasetText } from '../modules/dataset/parse.ts';
import { serializeDataset } from '../modules/dataset/serialize.ts';
import { migrate } from '../db/orm.ts';
import { nonNegativeInt, parse, requiredString, UsageError } from './args.ts';
import { withDatabase } from './database.ts';

const progress = (message: string) => process.stderr.write(`${message}\n`);

export async function migrateCommand(args: string[]): Promise<void> {
  parse(args, {});
  await withDatabase(async (orm) => {
    const applied = await migrate(orm);
    progress(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
  }, { migrate: false });
}

export async function loadCommand(args: string[]): Promise<void> {
  const { positionals } = parse(args, {}, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('FILE is required: bomcore load FILE');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  progress(`validating ${file} (${(text.length / 1024 / 1024).toFixed(1)} MiB)`);
  const parsed = parseDatasetText(text);
  if (!parsed.ok) {
    const shown = parsed.errors.slice(0, 200);
    for (const e of shown) process.stderr.write(`${e.path}: ${e.message}\n`);
    if (parsed.errors.length > shown.length) process.stderr.write(`… and ${parsed.errors.length - shown.length} more\n`);
    process.stderr.write(`${file} was refused: ${parsed.errors.length} problem(s); nothing was written\n`);
    process.exitCode = 1;
    return;
  }
  await withDatabase(async (orm, config) => {
    const started = Date.now();
    const report = await importDataset({ orm, config }, parsed.dataset, progress);
    const total = Object.values(report.rows).reduce((a, b) => a + b, 0);
    progress(`loaded shop ${report.shopId}: ${total} rows in ${Date.now() - started} ms`);
  });
}

export async function exportCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, out: { type: 'string' } });
  const shopId = requiredString(values.shop, '--shop');
  await withDatabase(async (orm) => {
    const text = serializeDataset(await exportDataset(orm.em, shopId));
    if (values.out) {
      await writeFile(values.out, text);
      progress(`wrote ${values.out}`);
    } else {
      process.stdout.write(text);
    }
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
  let lastPhase = '';
  let lastAt = 0;
  const dataset = generateDataset({
    ...options,
    onProgress: (phase, done, total) => {
      const now = Date.now();
      if (phase !== lastPhase || done === total || now - lastAt > 1000) {
        progress(`generate: ${phase} ${done}/${total}`);
        lastPhase = phase;
        lastAt = now;
      }
    },
  });
  const text = serializeDataset(dataset);
  if (values.out) {
    await writeFile(values.out, text);
    progress(`wrote ${values.out} (${(text.length / 1024 / 1024).toFixed(1)} MiB)`);
  } else {
    process.stdout.write(text);
  }
}
