import { MAX_JSON_DEPTH } from './limits.ts';

/**
 * Nesting depth, measured without recursion. Every walk of a request value (the storable-text
 * check, the GraphQL argument checks, the federation resolver, the logger) recurses once per
 * level, so a 16 KB body of 8,000 nested arrays overflowed the stack and answered 500. The depth
 * is measured first, with a counter over the raw text or an explicit stack over a parsed value,
 * and a value deeper than MAX_JSON_DEPTH (src/kernel/limits.ts) is refused, naming the limit, before any
 * recursive walk sees it.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * True when JSON text nests arrays and objects deeper than `limit` (`[[1]]` is 2). Brackets inside
 * strings do not count. Text that is no JSON is judged the same way (JSON.parse refuses it after).
 */
export function jsonTextNestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** True when a parsed value nests arrays and objects deeper than `limit` (a scalar is 0, `{}` is 1). */
export function valueNestsDeeper(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: { value: object; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child as object, depth: depth + 1 });
    }
  }
  return false;
}

/** The message naming the limit: `must not nest arrays and objects more than 32 levels deep`. */
export function tooDeepMessage(limit = MAX_JSON_DEPTH): string {
  return `must not nest arrays and objects more than ${limit} levels deep`;
}

/**
 * The deepest nesting of `{`, `[` and `(` in a GraphQL document, outside strings, block strings and
 * comments: what graphql-js's parser recurses over (once per level, several frames each), so a
 * document within the token limit could still overflow its stack. Measured before it is parsed.
 */
export function graphqlNestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"' && source.startsWith('"""', i)) {
      i += 3;
      while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
      i += 2;
    } else if (c === '"') {
      for (i++; i < source.length && source[i] !== '"' && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
    } else if (c === '{' || c === '[' || c === '(') {
      deepest = Math.max(deepest, ++depth);
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
    }
  }
  return deepest;
}
