import { readdirSync, readFileSync } from 'node:fs';

// Every Admin API operation the adapter sends is a .graphql file: `operations/` for requests,
// `bulk/` for the queries handed to bulkOperationRunQuery, `fragments/` for selections requests
// share (a request gets the fragments it spreads appended, so each selection is written once).
// Every document is validated against Shopify's published schema in the tests
// (test/platform/shopify-operations.test.ts), so a field Shopify does not have fails the build,
// not a merchant's sync.

const OPERATIONS_DIR = new URL('./operations/', import.meta.url);
const BULK_DIR = new URL('./bulk/', import.meta.url);
const FRAGMENTS_DIR = new URL('./fragments/', import.meta.url);

function readFolder(dir: URL): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort()) {
    files.set(name.slice(0, -'.graphql'.length), readFileSync(new URL(name, dir), 'utf8'));
  }
  return files;
}

/** The shared fragments by fragment name (`fragment OrderLine on LineItem` → `OrderLine`). */
export const FRAGMENTS: ReadonlyMap<string, string> = new Map([...readFolder(FRAGMENTS_DIR).values()].map((text) => {
  const name = /^\s*fragment\s+(\w+)/m.exec(text)?.[1];
  if (!name) throw new Error(`a file in src/platform/shopify/fragments/ holds no fragment:\n${text}`);
  return [name, text] as const;
}));

/** `text` with every fragment it spreads (and those spread by them) appended once. */
function withFragments(text: string): string {
  const added = new Set<string>();
  let document = text;
  for (let pending = spreads(text); pending.length > 0;) {
    const name = pending.shift()!;
    if (added.has(name)) continue;
    const fragment = FRAGMENTS.get(name);
    if (fragment === undefined) throw new Error(`...${name} is spread but src/platform/shopify/fragments/ has no fragment ${name}`);
    added.add(name);
    document += `\n${fragment}`;
    pending.push(...spreads(fragment));
  }
  return document;
}

function spreads(text: string): string[] {
  return [...text.matchAll(/\.\.\.\s*(?!on\b)([A-Za-z_]\w*)/g)].map((m) => m[1]!);
}

/** The request operations by file name (without `.graphql`), with the fragments they spread. */
export const REQUEST_OPERATIONS: ReadonlyMap<string, string> = new Map([...readFolder(OPERATIONS_DIR)].map(([name, text]) => [name, withFragments(text)]));
/** The bulk queries by file name. */
export const BULK_QUERIES: ReadonlyMap<string, string> = readFolder(BULK_DIR);

export type RequestOperationName =
  'shop-access' | 'locations' | 'bulk-operation-run' | 'bulk-operation-status' | 'inventory-adjust' | 'metafields-set' | 'webhook-subscription-create'
  | 'reconcile-products' | 'product-variants' | 'reconcile-levels' | 'reconcile-orders' | 'order-line-items' | 'fulfillment-line-items'
  | 'order-fulfillment-orders' | 'order-history' | 'inventory-set' | 'inventory-item-levels';
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
