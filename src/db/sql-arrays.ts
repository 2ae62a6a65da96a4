/**
 * A text[] (or numeric[]) value as a PostgreSQL array literal. Raw-query parameters expand JS arrays
 * into lists (and an empty one into nothing), so arrays travel as their literal text.
 */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
