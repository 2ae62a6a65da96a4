import { checkCatalog } from './catalog-checks.ts';
import { buildContext } from './check-context.ts';
import { checkAssemblyCycles } from './cycle-checks.ts';
import { DATASET_SHAPE } from './dataset-shape.ts';
import { exactNumberReviver } from './exact-number.ts';
import { normalize } from './shape.ts';
import { checkStock } from './stock-checks.ts';
import type { Dataset, DatasetError, DatasetResult } from './types.ts';
import { DATASET_FORMAT_VERSION } from './types.ts';
import { checkWorkOrders } from './work-order-checks.ts';

/**
 * Parses and validates a dataset file. Numbers are read from their source text (exact
 * decimals). Every problem is reported, each at its JSONPath; a file with any problem yields
 * no dataset.
 */
export function parseDatasetText(text: string): DatasetResult {
  let value: unknown;
  try {
    value = JSON.parse(text, exactNumberReviver);
  } catch (error) {
    return { ok: false, errors: [{ path: '$', message: `malformed JSON: ${(error as Error).message}` }] };
  }
  return validateDataset(value);
}

/**
 * Validates an already-parsed value: the output of {@link parseDatasetText}'s reviver, or plain
 * JSON whose numbers are JS numbers (read through their shortest text, `String(n)`).
 */
export function validateDataset(value: unknown): DatasetResult {
  const errors: DatasetError[] = [];
  const normalized = normalize(DATASET_SHAPE, value, null, null, errors);
  if (normalized === null) return { ok: false, errors };
  const dataset = normalized as Dataset;
  if (dataset.formatVersion !== null && dataset.formatVersion !== DATASET_FORMAT_VERSION) {
    errors.push({ path: '$.formatVersion', message: `unsupported formatVersion ${dataset.formatVersion as number} (expected ${DATASET_FORMAT_VERSION})` });
  }
  const ctx = buildContext(dataset, errors);
  checkCatalog(ctx);
  checkAssemblyCycles(ctx);
  checkStock(ctx);
  checkWorkOrders(ctx);
  return errors.length === 0 ? { ok: true, dataset } : { ok: false, errors };
}
