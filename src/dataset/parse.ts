import { checkDataset, treeRoot } from './dataset-check.ts';
import { exactNumberReviver } from './exact-number.ts';
import { Problems } from './problems.ts';
import type { DatasetResult } from './types.ts';

/**
 * Parses and validates a dataset held in memory. Numbers are read from their source text (exact
 * decimals). Every problem is reported, each at its JSONPath; a file with any problem yields
 * no dataset. (`bomcore load` streams a file instead: see dataset-file.ts.)
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
  const problems = new Problems();
  const { dataset } = checkDataset(treeRoot(value), problems, { collect: true });
  return dataset ? { ok: true, dataset } : { ok: false, errors: problems.list() };
}
