import { DATASET_SHAPE } from './dataset-shape.ts';
import { toJsonTree } from './shape.ts';
import type { Dataset } from './types.ts';

/**
 * Writes a dataset as pretty JSON (2-space indent) in the canonical key order of the dataset format (docs/datasets.md).
 * Decimal strings become JSON numbers with exactly their digits; nulls are written, not omitted.
 * Serializing a parsed serialization gives the same text.
 */
export function serializeDataset(dataset: Dataset): string {
  return `${JSON.stringify(toJsonTree(DATASET_SHAPE, dataset), null, 2)}\n`;
}
