/**
 * Order ids arrive bare (`5001`) or as global ids (`gid://<platform>/Order/5001`). Anything else,
 * or a global id of another platform or type, resolves to nothing.
 */
export function parseOrderId(raw: string, platformName: string): string | null {
  const value = raw.trim();
  if (/^\d{1,20}$/.test(value)) return value;
  const match = /^gid:\/\/([a-z][a-z0-9-]*)\/Order\/(\d{1,20})$/.exec(value);
  return match && match[1] === platformName ? match[2]! : null;
}

/** `ids` query values: repeatable and/or comma-separated; empty segments are dropped. */
export function splitIds(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0);
}
