/**
 * List-valued query parameters (`locationIds`, `status`, `tags`, `ids`, `vendorFilter`): repeated
 * (`status=draft&status=ready`) and comma-separated (`status=draft,ready`) values mean the same, and
 * mix. Every array property of a query-string schema is one; the validator splits its values here
 * before checking each item, so `maxItems` counts items after splitting and an enum item is refused
 * with its allowed values.
 *
 * A value holding a comma (a vendor `Acme, Inc.`, a tag `a,b`) is written in double quotes:
 * `vendorFilter="Acme, Inc."`; a double quote inside a quoted value is doubled (CSV's rule). Spaces
 * around an item are dropped, and so are empty items (`locationIds=` is the empty list).
 */

/**
 * On a query-string array schema: the schema each item is checked against after splitting (set by
 * rest-facade/schema-helpers.ts `ListParameter`). A symbol, so the OpenAPI document never shows it:
 * the document's item is the value as sent, commas included.
 */
export const LIST_ITEM = Symbol('bomcore.queryListItem');

type Json = Record<string, unknown>;

/** A list value whose quoting does not close: refused, naming the parameter. */
export class ListSyntaxError extends Error {}

/** `a, "b,c",,"say ""hi"""` → `a`, `b,c`, `say "hi"`. Throws ListSyntaxError for a quote left open or text after a closing quote. */
export function splitListValue(value: string): string[] {
  const items: string[] = [];
  let at = 0;
  while (at <= value.length) {
    const start = at + (/^\s*/.exec(value.slice(at))?.[0].length ?? 0);
    if (value[start] !== '"') {
      const comma = value.indexOf(',', at);
      const end = comma < 0 ? value.length : comma;
      items.push(value.slice(at, end).trim());
      at = end + 1;
      continue;
    }
    let item = '';
    let cursor = start + 1;
    for (;;) {
      const quote = value.indexOf('"', cursor);
      if (quote < 0) throw new ListSyntaxError('has a double quote that is not closed (quote a value holding a comma whole: "Acme, Inc.")');
      item += value.slice(cursor, quote);
      if (value[quote + 1] !== '"') {
        cursor = quote + 1;
        break;
      }
      item += '"';
      cursor = quote + 2;
    }
    const rest = /^\s*(,|$)/.exec(value.slice(cursor));
    if (!rest) throw new ListSyntaxError('has text after a closing double quote (a quote inside a quoted value is doubled: "say ""hi""")');
    items.push(item);
    at = cursor + rest[0].length + (rest[1] === ',' ? 0 : 1);
  }
  return items.filter((item) => item !== '');
}

/** The list parameters of a query-string schema: its array properties. */
export function listParameters(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, Json> } | null)?.properties ?? {};
  return Object.keys(properties).filter((name) => properties[name]?.type === 'array');
}

/** The schema the validator checks a query string with: each list's items as its LIST_ITEM says (the document shows the joined form). */
export function listValidationSchema(schema: Json): Json {
  const properties = schema.properties as Record<string, Json & { [LIST_ITEM]?: Json }> | undefined;
  if (!properties) return schema;
  const checked = Object.fromEntries(Object.entries(properties).map(([name, property]) =>
    [name, property[LIST_ITEM] ? { ...property, items: property[LIST_ITEM] } : property]));
  return { ...schema, properties: checked };
}

/**
 * Splits the values of each list parameter of `query` in place. Returns the name of a parameter
 * whose quoting is malformed, with the reason, or null.
 */
export function splitListParameters(query: unknown, names: readonly string[]): { name: string; message: string } | null {
  if (typeof query !== 'object' || query === null) return null;
  const values = query as Record<string, unknown>;
  for (const name of names) {
    const sent = values[name];
    if (sent === undefined) continue;
    try {
      values[name] = (Array.isArray(sent) ? sent : [sent]).flatMap((v) => (typeof v === 'string' ? splitListValue(v) : [v]));
    } catch (error) {
      if (error instanceof ListSyntaxError) return { name, message: error.message };
      throw error;
    }
  }
  return null;
}
