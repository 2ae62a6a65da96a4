import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';

// A dataset file is read in chunks, never whole: one pass checks that it is well-formed JSON and
// notes where each top-level section lies (byte offsets); later passes read one section at a
// time and hand out its array elements one by one, each parsed on its own, with every number
// kept as its source text (as the exact-number reviver of a whole-file JSON.parse does).

/** Where bytes come from: a file descriptor, or a buffer (tests). */
export interface ByteSource {
  readonly size: number;
  /** Reads up to `length` bytes at `position` into `target` at `offset`; returns how many were read. */
  read(target: Buffer, offset: number, length: number, position: number): number;
}

export class FileByteSource implements ByteSource {
  readonly size: number;
  readonly fd: number;
  /** Identity of the file when it was opened: a load refuses a file that changed under it. */
  readonly mtimeMs: number;

  constructor(path: string) {
    this.fd = openSync(path, 'r');
    const stat = fstatSync(this.fd);
    this.size = stat.size;
    this.mtimeMs = stat.mtimeMs;
  }

  read(target: Buffer, offset: number, length: number, position: number): number {
    return readSync(this.fd, target, offset, length, position);
  }

  close(): void {
    closeSync(this.fd);
  }
}

export class BufferByteSource implements ByteSource {
  readonly size: number;
  private readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    this.size = bytes.length;
  }

  read(target: Buffer, offset: number, length: number, position: number): number {
    return this.bytes.copy(target, offset, position, Math.min(position + length, this.size));
  }
}

export const DEFAULT_CHUNK_SIZE = 1 << 20;

/** Deepest nesting accepted (a dataset needs about 8 levels; this keeps every pass off the call-stack limit). */
export const MAX_DEPTH = 1000;

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** A JSON value's place in the source: bytes [start, end). */
export interface JsonSpan {
  kind: JsonKind;
  start: number;
  end: number;
}

export interface JsonMember extends JsonSpan {
  /** When the value is an object: its members (null prototype, in JavaScript key order). */
  members?: Record<string, JsonSpan>;
}

/** What the syntax pass learns: the root value and, when it is an object, its members two levels deep. */
export interface JsonOutline {
  root: JsonSpan;
  members: Record<string, JsonMember> | null;
}

export class JsonSyntaxError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

// States of the syntax pass.
const VALUE = 0; // a value must come
const VALUE_OR_CLOSE = 1; // after '['
const KEY_OR_CLOSE = 2; // after '{'
const KEY = 3; // after ',' in an object
const COLON = 4;
const AFTER_VALUE = 5; // ',' or the closing bracket (or the end, at the root)
const STRING = 6;
const STRING_ESCAPE = 7;
const STRING_HEX = 8;
const NUMBER = 9;
const LITERAL = 10;
const DONE = 11;

// Sub-states of a number, after: '-', a leading 0, integer digits, '.', fraction digits, 'e', the exponent sign, exponent digits.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;

const isHex = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

function shown(b: number): string {
  return b > 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `byte 0x${b.toString(16).padStart(2, '0')}`;
}

/**
 * Checks that the whole source is one well-formed JSON value (RFC 8259) and returns its outline.
 * Throws {@link JsonSyntaxError} naming the line and column of the first problem.
 */
export function outlineJson(source: ByteSource, options: { chunkSize?: number; onProgress?: (done: number, total: number) => void } = {}): JsonOutline {
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const buf = Buffer.allocUnsafe(chunkSize);
  const outline = new Outliner();
  // Containers: true for an object, false for an array.
  const stack: boolean[] = [];
  let state = VALUE;
  let keyString = false;
  let numberState = N_MINUS;
  let literal = '';
  let literalAt = 0;
  let hexLeft = 0;
  let line = 1;
  let lineStart = 0;
  let base = 0;
  const fail = (message: string, at: number): never => {
    throw new JsonSyntaxError(`${message} at line ${line}, column ${at - lineStart + 1}`, at);
  };

  for (;;) {
    const n = base < source.size ? source.read(buf, 0, Math.min(chunkSize, source.size - base), base) : 0;
    if (n === 0) break;
    options.onProgress?.(base + n, source.size);
    if (outline.keyStart >= 0) outline.keyStart = 0;
    let i = 0;
    while (i < n) {
      const b = buf[i]!;
      switch (state) {
        case STRING: {
          // Most bytes are plain string content: step over them in a tight loop.
          let c = b;
          while (c !== 0x22 && c !== 0x5c && c >= 0x20) {
            if (++i === n) break;
            c = buf[i]!;
          }
          if (i === n) continue;
          if (c === 0x22) {
            if (keyString) {
              if (outline.keyStart >= 0) outline.takeKey(buf, i);
              state = COLON;
            } else {
              state = stack.length === 0 ? DONE : AFTER_VALUE;
              if (stack.length <= 2) outline.valueEnd(stack, base + i + 1);
            }
          } else if (c === 0x5c) {
            state = STRING_ESCAPE;
          } else {
            fail(`unescaped control character ${shown(c)} in a string`, base + i);
          }
          i++;
          continue;
        }
        case STRING_ESCAPE:
          if (b === 0x75) {
            state = STRING_HEX;
            hexLeft = 4;
          } else if (b === 0x22 || b === 0x5c || b === 0x2f || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74) {
            state = STRING;
          } else {
            fail(`invalid escape \\${String.fromCharCode(b)} in a string`, base + i);
          }
          i++;
          continue;
        case STRING_HEX:
          if (!isHex(b)) fail(`invalid \\u escape (${shown(b)} is not a hex digit)`, base + i);
          if (--hexLeft === 0) state = STRING;
          i++;
          continue;
        case NUMBER: {
          let more = true;
          switch (numberState) {
            case N_MINUS:
              if (b === 0x30) numberState = N_ZERO;
              else if (isDigit(b)) numberState = N_INT;
              else fail(`malformed number: ${shown(b)} after '-'`, base + i);
              break;
            case N_ZERO:
            case N_INT:
              if (isDigit(b) && numberState === N_INT) break;
              if (isDigit(b)) fail('malformed number: a leading zero is followed by a digit', base + i);
              if (b === 0x2e) numberState = N_DOT;
              else if (b === 0x65 || b === 0x45) numberState = N_E;
              else more = false;
              break;
            case N_DOT:
              if (isDigit(b)) numberState = N_FRAC;
              else fail(`malformed number: ${shown(b)} after '.'`, base + i);
              break;
            case N_FRAC:
              if (b === 0x65 || b === 0x45) numberState = N_E;
              else if (!isDigit(b)) more = false;
              break;
            case N_E:
              if (b === 0x2b || b === 0x2d) numberState = N_E_SIGN;
              else if (isDigit(b)) numberState = N_EXP;
              else fail(`malformed number: ${shown(b)} in the exponent`, base + i);
              break;
            case N_E_SIGN:
              if (isDigit(b)) numberState = N_EXP;
              else fail(`malformed number: ${shown(b)} in the exponent`, base + i);
              break;
            default:
              if (!isDigit(b)) more = false;
          }
          if (more) {
            i++;
            continue;
          }
          // The number ended before this byte, which is read again as what follows a value.
          state = stack.length === 0 ? DONE : AFTER_VALUE;
          if (stack.length <= 2) outline.valueEnd(stack, base + i);
          continue;
        }
        case LITERAL:
          if (b !== literal.charCodeAt(literalAt)) fail(`unexpected ${shown(b)} (expected "${literal}")`, base + i);
          if (++literalAt === literal.length) {
            state = stack.length === 0 ? DONE : AFTER_VALUE;
            if (stack.length <= 2) outline.valueEnd(stack, base + i + 1);
          }
          i++;
          continue;
        default:
          break;
      }
      // Structural states: whitespace first.
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
        let c = b;
        do {
          if (c === 0x0a) {
            line++;
            lineStart = base + i + 1;
          }
          if (++i === n) break;
          c = buf[i]!;
        } while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09);
        continue;
      }
      const at = base + i;
      switch (state) {
        case VALUE:
        case VALUE_OR_CLOSE: {
          if (b === 0x5d && state === VALUE_OR_CLOSE) {
            stack.pop();
            state = AFTER_VALUE;
            if (stack.length <= 2) outline.valueEnd(stack, at + 1);
            break;
          }
          let kind: JsonKind;
          if (b === 0x7b) kind = 'object';
          else if (b === 0x5b) kind = 'array';
          else if (b === 0x22) kind = 'string';
          else if (b === 0x2d || isDigit(b)) kind = 'number';
          else if (b === 0x74 || b === 0x66) kind = 'boolean';
          else if (b === 0x6e) kind = 'null';
          else return fail(`unexpected ${shown(b)} where a value should be`, at);
          if (stack.length <= 2) outline.valueStart(stack, kind, at);
          switch (kind) {
            case 'object':
              if (stack.push(true) > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} levels deep`, at);
              state = KEY_OR_CLOSE;
              break;
            case 'array':
              if (stack.push(false) > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} levels deep`, at);
              state = VALUE_OR_CLOSE;
              break;
            case 'string':
              state = STRING;
              keyString = false;
              break;
            case 'number':
              state = NUMBER;
              numberState = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
              break;
            default:
              state = LITERAL;
              literal = b === 0x74 ? 'true' : b === 0x66 ? 'false' : 'null';
              literalAt = 1;
          }
          break;
        }
        case KEY_OR_CLOSE:
        case KEY:
          if (b === 0x22) {
            state = STRING;
            keyString = true;
            if (stack.length <= 2) outline.keyBegins(stack, i + 1);
          } else if (b === 0x7d && state === KEY_OR_CLOSE) {
            stack.pop();
            state = AFTER_VALUE;
            if (stack.length <= 2) outline.valueEnd(stack, at + 1);
          } else {
            fail(`unexpected ${shown(b)} where a member name (a string) should be`, at);
          }
          break;
        case COLON:
          if (b !== 0x3a) fail(`unexpected ${shown(b)} where ':' should be`, at);
          state = VALUE;
          break;
        case AFTER_VALUE: {
          const inObject = stack[stack.length - 1];
          if (b === 0x2c) {
            state = inObject ? KEY : VALUE;
          } else if ((b === 0x7d && inObject === true) || (b === 0x5d && inObject === false)) {
            stack.pop();
            if (stack.length <= 2) outline.valueEnd(stack, at + 1);
          } else {
            fail(`unexpected ${shown(b)} where ',' or '${inObject ? '}' : ']'}' should be`, at);
          }
          break;
        }
        default:
          fail(`unexpected ${shown(b)} after the end of the JSON value`, at);
      }
      if (state === AFTER_VALUE && stack.length === 0) state = DONE;
      i++;
    }
    if (outline.keyStart >= 0) outline.keepKeyPart(buf, n);
    base += n;
  }
  if (state === NUMBER && stack.length === 0 && numberState !== N_MINUS && numberState !== N_DOT && numberState !== N_E && numberState !== N_E_SIGN) {
    outline.valueEnd(stack, base);
    state = DONE;
  }
  if (state !== DONE) fail(base === 0 ? 'the file is empty' : 'unexpected end of input', base);
  return outline.result();
}

/** Notes values and member names of the root object and of the objects directly inside it. */
class Outliner {
  private root: JsonSpan | null = null;
  private rootMembers: Record<string, JsonMember> | null = null;
  private nested: Record<string, JsonSpan> | null = null;
  /** Per depth (1: a root member, 2: a member of one of those): its name and where its value starts. */
  private readonly keys: (string | null)[] = [null, null, null];
  private readonly starts = [0, 0, 0];
  private readonly kinds: JsonKind[] = ['null', 'null', 'null'];
  /** Where the member name being read starts in the current chunk (-1: not reading one). */
  keyStart = -1;
  private keyParts: Buffer[] = [];
  private keyDepth = 1;

  private tracked(stack: boolean[]): boolean {
    // Members of the root object, and of an object that is the value of a root member.
    return stack.length === 1 ? stack[0] === true : stack.length === 2 && stack[0] === true && stack[1] === true;
  }

  keyBegins(stack: boolean[], at: number): void {
    if (!this.tracked(stack)) return;
    this.keyDepth = stack.length;
    this.keyStart = at;
    this.keyParts = [];
  }

  keepKeyPart(buf: Buffer, end: number): void {
    this.keyParts.push(Buffer.from(buf.subarray(this.keyStart, end)));
  }

  takeKey(buf: Buffer, end: number): void {
    const raw = Buffer.concat([...this.keyParts, buf.subarray(this.keyStart, end)]).toString('utf8');
    this.keyStart = -1;
    this.keyParts = [];
    // The syntax pass has checked the escapes; JSON.parse resolves them.
    this.keys[this.keyDepth] = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  valueStart(stack: boolean[], kind: JsonKind, at: number): void {
    const depth = stack.length;
    if (depth === 0) {
      this.root = { kind, start: at, end: at };
      if (kind === 'object') this.rootMembers = Object.create(null) as Record<string, JsonMember>;
      return;
    }
    if (!this.tracked(stack)) return;
    this.starts[depth] = at;
    this.kinds[depth] = kind;
    if (depth === 1) this.nested = kind === 'object' ? (Object.create(null) as Record<string, JsonSpan>) : null;
  }

  /** A value ended at `end`; `stack` holds the containers around it. */
  valueEnd(stack: boolean[], end: number): void {
    const depth = stack.length;
    if (depth === 0) {
      this.root!.end = end;
      return;
    }
    if (!this.tracked(stack)) return;
    const key = this.keys[depth]!;
    const span: JsonMember = { kind: this.kinds[depth]!, start: this.starts[depth]!, end };
    if (depth === 1) {
      if (span.kind === 'object') span.members = this.nested!;
      this.nested = null;
      // As in JSON.parse, a repeated name keeps its first position and its last value.
      this.rootMembers![key] = span;
    } else {
      this.nested![key] = span;
    }
  }

  result(): JsonOutline {
    return { root: this.root!, members: this.rootMembers };
  }
}

/** Reads bytes [start, end) of the source whole (for small members such as the shop). */
export function readSpan(source: ByteSource, span: JsonSpan): string {
  const buf = Buffer.allocUnsafe(span.end - span.start);
  let done = 0;
  while (done < buf.length) {
    const n = source.read(buf, done, buf.length - done, span.start + done);
    if (n === 0) throw new FileChangedError('it is shorter than when it was checked');
    done += n;
  }
  return buf.toString('utf8');
}

export interface ElementReading {
  /** SHA-256 of the array's bytes, complete once the iteration ended. */
  readonly hash: Hash;
}

export function newElementReading(): ElementReading {
  return { hash: createHash('sha256') };
}

/** Thrown by the element parser when the element runs past the bytes at hand. */
const INCOMPLETE = Symbol('incomplete');

/**
 * The elements of the JSON array at `span`, parsed one by one, in order: numbers become
 * `ExactNumber`s made by `number` from their source text (as the whole-file reviver does), member
 * order and repeated names behave as in JSON.parse. Memory is one chunk plus the largest element.
 */
export function* arrayElements<N>(source: ByteSource, span: JsonSpan, reading: ElementReading, number: (text: string) => N,
  chunkSize = DEFAULT_CHUNK_SIZE, onRead?: (position: number) => void): Generator<unknown> {
  const parser = new ElementParser(number);
  let buf = Buffer.allocUnsafe(Math.max(1, chunkSize));
  let length = 0; // valid bytes in buf
  let position = span.start; // file offset of the byte after buf[length - 1]
  let pos = 0;
  // 0: before '[', 1: after '[', 2: after ',', 3: after an element
  let phase = 0;
  /** Reads more bytes behind buf[0, kept). */
  const readBehind = (kept: number) => {
    if (kept === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, kept);
      buf = bigger;
    }
    const want = Math.min(buf.length - kept, span.end - position);
    const n = want > 0 ? source.read(buf, kept, want, position) : 0;
    if (n === 0) throw new FileChangedError('an array ends early');
    reading.hash.update(buf.subarray(kept, kept + n));
    position += n;
    length = kept + n;
    pos = 0;
    onRead?.(position);
  };
  for (;;) {
    if (pos >= length) readBehind(0);
    const b = buf[pos]!;
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
      pos++;
      continue;
    }
    if (phase === 0) {
      if (b !== 0x5b) throw new FileChangedError(`${shown(b)} where an array should start`);
      phase = 1;
      pos++;
      continue;
    }
    if (phase === 3 || (phase === 1 && b === 0x5d)) {
      if (b === 0x5d) break;
      if (b !== 0x2c) throw new FileChangedError(`${shown(b)} after an array element`);
      phase = 2;
      pos++;
      continue;
    }
    parser.buf = buf;
    parser.end = length;
    parser.pos = pos;
    let value: unknown;
    try {
      value = parser.value();
    } catch (error) {
      if (error !== INCOMPLETE) throw error;
      // The element runs past the bytes at hand: move its start to the front, read more, parse it again.
      const kept = length - pos;
      if (pos > 0) buf.copy(buf, 0, pos, length);
      readBehind(kept);
      continue;
    }
    pos = parser.pos;
    phase = 3;
    yield value;
  }
  if (position - length + pos + 1 !== span.end) throw new FileChangedError('an array ends late');
}

/** The bytes of a file no longer are what an earlier pass read. */
export class FileChangedError extends Error {
  constructor(detail: string) {
    super(`the file changed while it was being read (${detail})`);
  }
}

/** Buffer's own decoder, without toString's argument checks (a measurable share of the time). */
interface Utf8Slicer { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string }

const NUMBER_BYTE = new Uint8Array(256);
for (const c of '0123456789+-.eE') NUMBER_BYTE[c.charCodeAt(0)] = 1;
const NUMBER_PATTERN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Recursive-descent JSON parser over a byte range, for one array element at a time. Faster than
 * JSON.parse with a source-text reviver (which calls back into JavaScript for every value), and
 * as strict: anything that is not JSON is an error.
 */
class ElementParser {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;
  private depth = 0;
  private readonly number: (text: string) => unknown;

  constructor(number: (text: string) => unknown) {
    this.number = number;
  }

  private skipWhitespace(): number {
    const buf = this.buf;
    let i = this.pos;
    for (;;) {
      if (i >= this.end) throw INCOMPLETE;
      const b = buf[i]!;
      if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) {
        this.pos = i;
        return b;
      }
      i++;
    }
  }

  private bad(what: string): never {
    throw new FileChangedError(`${what} at byte ${this.pos} of the buffer`);
  }

  value(): unknown {
    const b = this.skipWhitespace();
    switch (b) {
      case 0x7b:
      case 0x5b: {
        if (++this.depth > MAX_DEPTH) this.bad('nesting deeper than the syntax pass saw');
        try {
          return b === 0x7b ? this.object() : this.array();
        } finally {
          this.depth--;
        }
      }
      case 0x22: return this.string();
      case 0x74: return this.literal('true', true);
      case 0x66: return this.literal('false', false);
      case 0x6e: return this.literal('null', null);
      default:
        if (b === 0x2d || (b >= 0x30 && b <= 0x39)) return this.numberValue();
        return this.bad(`${shown(b)} where a value should be`);
    }
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    let b = this.skipWhitespace();
    if (b === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      if (b !== 0x22) this.bad('a member name should be a string');
      const key = this.string();
      if (this.skipWhitespace() !== 0x3a) this.bad("':' should follow a member name");
      this.pos++;
      const value = this.value();
      // JSON.parse makes "__proto__" an own member; an assignment would set the prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      b = this.skipWhitespace();
      this.pos++;
      if (b === 0x7d) return out;
      if (b !== 0x2c) this.bad("',' or '}' should follow a member");
      b = this.skipWhitespace();
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    let b = this.skipWhitespace();
    if (b === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      b = this.skipWhitespace();
      this.pos++;
      if (b === 0x5d) return out;
      if (b !== 0x2c) this.bad("',' or ']' should follow an element");
    }
  }

  private string(): string {
    const buf = this.buf;
    const end = this.end;
    const start = this.pos + 1;
    let i = start;
    for (;;) {
      if (i >= end) throw INCOMPLETE;
      const c = buf[i]!;
      if (c === 0x22) break;
      if (c === 0x5c) return this.escapedString(start);
      if (c < 0x20) this.bad('a control character in a string');
      i++;
    }
    this.pos = i + 1;
    return (buf as unknown as Utf8Slicer).utf8Slice(start, i);
  }

  private escapedString(start: number): string {
    const buf = this.buf;
    let i = start;
    for (;;) {
      if (i >= this.end) throw INCOMPLETE;
      const c = buf[i]!;
      if (c === 0x22) break;
      i += c === 0x5c ? 2 : 1;
    }
    this.pos = i + 1;
    try {
      return JSON.parse(buf.toString('utf8', start - 1, i + 1)) as string;
    } catch {
      return this.bad('a malformed string');
    }
  }

  private numberValue(): unknown {
    const buf = this.buf;
    const start = this.pos;
    let i = start + 1;
    for (;;) {
      if (i >= this.end) throw INCOMPLETE;
      if (NUMBER_BYTE[buf[i]!] !== 1) break;
      i++;
    }
    const text = (buf as unknown as Utf8Slicer).latin1Slice(start, i);
    if (!NUMBER_PATTERN.test(text)) this.bad(`a malformed number ${text}`);
    this.pos = i;
    return this.number(text);
  }

  private literal<T>(word: string, value: T): T {
    const at = this.pos;
    if (at + word.length > this.end) throw INCOMPLETE;
    for (let k = 1; k < word.length; k++) if (this.buf[at + k] !== word.charCodeAt(k)) this.bad(`a malformed "${word}"`);
    this.pos = at + word.length;
    return value;
  }
}
