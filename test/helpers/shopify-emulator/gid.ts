// Shopify global ids: gid://shopify/<Type>/<legacy id>. The store keys every record by its legacy
// (numeric) id, as the dataset format does; GraphQL sees only GIDs.

export function gid(type: string, id: string | number): string {
  return `gid://shopify/${type}/${id}`;
}

/** The legacy id of a GID of the given type, or null when the text is not one. */
export function legacyId(value: unknown, type?: string): string | null {
  if (typeof value !== 'string') return null;
  const match = /^gid:\/\/shopify\/([A-Za-z]+)\/([0-9]+)(?:\?.*)?$/.exec(value);
  if (!match) return null;
  if (type && match[1] !== type) return null;
  return match[2]!;
}

export function gidType(value: string): string | null {
  return /^gid:\/\/shopify\/([A-Za-z]+)\//.exec(value)?.[1] ?? null;
}

/** Shopify's DateTime: ISO 8601 in UTC, whole seconds. */
export function dateTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Inventory quantities are GraphQL `Int`s on Shopify: whole numbers only, never rounded. */
export function wholeNumber(value: string | number, what: string): number {
  const text = String(value);
  if (!/^-?\d+$/.test(text)) throw new Error(`emulator: ${what} must be a whole number, got ${text}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`emulator: ${what} out of range: ${text}`);
  return n;
}

export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
