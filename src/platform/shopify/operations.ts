import { readdirSync, readFileSync } from 'node:fs';

// Every Admin API operation the adapter sends is a .graphql file: `operations/` for requests,
// `bulk/` for the queries handed to bulkOperationRunQuery. Both folders are validated against
// Shopify's published schema in the tests (test/platform/shopify-operations.test.ts), so a field
// Shopify does not have fails the build, not a merchant's sync.

const OPERATIONS_DIR = new URL('./operations/', import.meta.url);
const BULK_DIR = new URL('./bulk/', import.meta.url);

function readFolder(dir: URL): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort()) {
    files.set(name.slice(0, -'.graphql'.length), readFileSync(new URL(name, dir), 'utf8'));
  }
  return files;
}

/** The request operations by file name (without `.graphql`). */
export const REQUEST_OPERATIONS: ReadonlyMap<string, string> = readFolder(OPERATIONS_DIR);
/** The bulk queries by file name. */
export const BULK_QUERIES: ReadonlyMap<string, string> = readFolder(BULK_DIR);

export type RequestOperationName =
  'shop-access' | 'locations' | 'bulk-operation-run' | 'bulk-operation-status' | 'inventory-adjust' | 'metafields-set' | 'webhook-subscription-create'
  | 'reconcile-products' | 'product-variants' | 'reconcile-levels' | 'reconcile-orders' | 'order-line-items';
export type BulkQueryName = 'variants' | 'open-orders';

export function requestOperation(name: RequestOperationName): string {
  const text = REQUEST_OPERATIONS.get(name);
  if (text === undefined) throw new Error(`src/platform/shopify/operations/${name}.graphql is missing`);
  return text;
}

export function bulkQuery(name: BulkQueryName): string {
  const text = BULK_QUERIES.get(name);
  if (text === undefined) throw new Error(`src/platform/shopify/bulk/${name}.graphql is missing`);
  return text;
}
