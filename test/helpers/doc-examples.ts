import { Kind, parse } from 'graphql';

/**
 * The examples of a markdown page, as the docs write them (docs/contributing.md, "Examples"):
 *
 * - a ```sh / ```bash block holding a curl call is an HTTP example, run in one shell per page;
 * - a ```graphql block is an operation sent to /graphql, with the ```json block right after it
 *   (nothing but blank lines between) as its variables;
 * - `<!-- not run: reason -->` right before a block keeps it from running (an SDL excerpt, another
 *   product's query); `<!-- expect userErrors: CODE … -->` says the operation is meant to answer
 *   those user errors, `<!-- expect status: 200 304 … -->` the statuses of a block's curl calls.
 *
 * Everything else runs by default, so a new example is checked without anyone asking for it.
 */

export interface FencedBlock {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  /** Only blank lines between the previous block's closing fence and this block. */
  adjacent: boolean;
  notRun: string | null;
  expectUserErrors: string[] | null;
  expectStatuses: number[] | null;
}

export type Example =
  | { kind: 'curl'; block: FencedBlock; calls: number }
  | { kind: 'graphql'; block: FencedBlock; variables: Record<string, unknown> | undefined }
  | { kind: 'not run'; block: FencedBlock; reason: string };

export interface PageExamples {
  examples: Example[];
  /** Shell blocks without curl (npm, npx, psql…): commands, not API examples; never run. */
  commandBlocks: number;
  /** Mistakes in how the page writes its examples: reported as failures. */
  problems: string[];
}

const DIRECTIVE = /^\s*<!--\s*(not run|expect userErrors|expect status)\s*:\s*(.*?)\s*-->\s*$/;
const LOOKS_LIKE_DIRECTIVE = /^\s*<!--\s*(not run|expect)\b/;
const SHELL = new Set(['sh', 'bash', 'shell']);

/** Every fenced block of a page, with the directive comment standing right before it. */
export function fencedBlocks(markdown: string): { blocks: FencedBlock[]; problems: string[] } {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  const problems: string[] = [];
  let pending: { line: number; name: string; value: string }[] = [];
  let adjacent = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const directive = DIRECTIVE.exec(line);
    if (directive) {
      pending.push({ line: i + 1, name: directive[1]!, value: directive[2]! });
      continue;
    }
    if (LOOKS_LIKE_DIRECTIVE.test(line)) problems.push(`line ${i + 1}: unreadable directive ${line.trim()} (write "<!-- not run: reason -->", "<!-- expect userErrors: CODE -->" or "<!-- expect status: 200 -->")`);
    const open = /^(\s*)```(\S*)/.exec(line);
    if (!open) {
      if (line.trim() === '') continue;
      for (const d of pending) problems.push(`line ${d.line}: "${d.name}" stands before prose, not right before a block`);
      pending = [];
      adjacent = false;
      continue;
    }
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(Math.min(indent, /^\s*/.exec(lines[j]!)![0].length)));
    if (j === lines.length) problems.push(`line ${i + 1}: a block that is never closed`);
    const notRun = pending.find((d) => d.name === 'not run');
    if (notRun && !notRun.value) problems.push(`line ${notRun.line}: "not run" needs a reason`);
    const userErrors = pending.find((d) => d.name === 'expect userErrors');
    const statuses = pending.find((d) => d.name === 'expect status');
    blocks.push({
      line: i + 1,
      lang: open[2]!,
      text: `${body.join('\n')}\n`,
      adjacent,
      notRun: notRun ? notRun.value || '(no reason given)' : null,
      expectUserErrors: userErrors ? userErrors.value.split(/[\s,]+/).filter(Boolean) : null,
      expectStatuses: statuses ? statuses.value.split(/[\s,]+/).filter(Boolean).map(Number) : null,
    });
    pending = [];
    adjacent = true;
    i = j;
  }
  return { blocks, problems };
}

/**
 * A shell block's commands, one per line as bash reads them: continuation lines and quoted text
 * spanning lines (a multi-line `-d '…'` body) joined, comments and blank lines dropped.
 */
export function shellCommands(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < block.length; i++) {
    const c = block[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') current += c + (block[++i] ?? '');
      else current += c === '\n' ? ' ' : c;
      if (c === quote) quote = null;
    } else if (c === '\\' && block[i + 1] === '\n') {
      current += ' ';
      i++;
    } else if (c === '#' && /(^|\s)$/.test(current)) {
      while (i + 1 < block.length && block[i + 1] !== '\n') i++;
    } else if (c === '\n') {
      commands.push(current.trim());
      current = '';
    } else {
      if (c === '"' || c === "'") quote = c;
      current += c;
    }
  }
  commands.push(current.trim());
  return commands.filter(Boolean);
}

/** Occurrences of a curl command (at the start of a command, or in `$(…)` / after a pipe or `;`) in a block. */
export const curlCalls = (block: string) => shellCommands(block).join('\n').match(/(^|\$\(|[|;&]\s*)curl\s/gm)?.length ?? 0;

/**
 * Only curl calls, variable assignments and echo may run: a block with any other command (npm, npx,
 * rm…) is reported instead of run, so an example can never change the checkout or the machine.
 */
export const unsafeCommands = (block: string) => shellCommands(block).filter((command) => !/^(curl\s|[A-Za-z_][A-Za-z0-9_]*=|echo\s)/.test(command));

/** Why a GraphQL block cannot be sent as written, or null when it is an executable query or mutation. */
function notExecutable(text: string): string | null {
  let definitions;
  try {
    definitions = parse(text).definitions;
  } catch (error) {
    return `it does not parse: ${(error as Error).message}`;
  }
  if (definitions.some((d) => d.kind !== Kind.OPERATION_DEFINITION && d.kind !== Kind.FRAGMENT_DEFINITION)) return 'it is SDL, not an operation';
  if (definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'subscription')) return 'it is a subscription, which bomcore does not serve';
  return null;
}

/** The examples of a page, in page order. */
export function pageExamples(markdown: string): PageExamples {
  const { blocks, problems } = fencedBlocks(markdown);
  const examples: Example[] = [];
  let commandBlocks = 0;
  blocks.forEach((block, index) => {
    const where = `line ${block.line}`;
    if (block.notRun) {
      if (SHELL.has(block.lang) || block.lang === 'graphql') examples.push({ kind: 'not run', block, reason: block.notRun });
      else problems.push(`${where}: "not run" on a \`\`\`${block.lang} block, which never runs`);
      return;
    }
    if (SHELL.has(block.lang)) {
      const calls = curlCalls(block.text);
      if (calls === 0) commandBlocks++;
      else if (unsafeCommands(block.text).length) problems.push(`${where}: a curl example also runs ${unsafeCommands(block.text).join('; ')} (split the block, or mark it "not run")`);
      else examples.push({ kind: 'curl', block, calls });
      return;
    }
    if (block.lang !== 'graphql') return;
    const why = notExecutable(block.text);
    if (why) {
      problems.push(`${where}: a \`\`\`graphql block that cannot run: ${why}; mark it <!-- not run: reason -->`);
      return;
    }
    const next = blocks[index + 1];
    let variables: Record<string, unknown> | undefined;
    if (next && next.lang === 'json' && next.adjacent) {
      try {
        variables = JSON.parse(next.text) as Record<string, unknown>;
      } catch (error) {
        problems.push(`line ${next.line}: the variables of the operation at ${where} are not JSON: ${(error as Error).message}`);
      }
    }
    examples.push({ kind: 'graphql', block, variables });
  });
  return { examples, commandBlocks, problems };
}
