// A patch holds pieces of files, and a piece parses as it stands in its file only with its
// surroundings: the hunk's context line (git's function context) opens the definition it starts in,
// and braces it leaves open are closed after it. The reading with the fewest syntax errors is kept.
import type { Parser, Node, Tree } from 'web-tree-sitter';
import { family, type CodeLanguage } from '../../resolver/grammars.ts';

export interface Piece {
  language: CodeLanguage;
  lines: readonly string[];
  /** File line number of the piece's first line. */
  start: number;
  /** Names of the functions or classes that enclose the piece (from the hunk's context). */
  scope?: string[];
  /** The context is a function: a definition at the piece's top level is its sibling, not inside it. */
  scopeIsFunction?: boolean;
  /** Whether it is a package's `__init__.py`, whose imports are its exports. */
  initModule?: boolean;
  /** The hunk's context line: the line that opens the definition the piece starts in (git's function context). */
  context?: string;
}

/** Syntax errors in a tree: error and missing nodes, and at least one where the tree says it has an error none of them shows. */
function errorCount(node: Node): number {
  let count = node.type === 'ERROR' || node.isMissing ? 1 : 0;
  if (node.hasError) for (const child of node.children) if (child) count += errorCount(child);
  return Math.max(count, node.hasError ? 1 : 0);
}

/** An opener of an unnamed function inside a class-like container, per language family (the piece may start inside a method). */
const METHOD_OPENER: Partial<Record<'js' | 'rust', { container: RegExp; opener: string }>> = {
  js: { container: /\bclass\b/, opener: '__piece() {' },
  rust: { container: /\b(?:impl|trait)\b/, opener: 'fn __piece() {' },
};

export interface ParsedPiece {
  tree: Tree;
  /** Lines put before the piece: its context line, then possibly an unnamed method's opener and opened blocks. */
  shift: number;
  inContext: boolean;
  /** The second line put before the piece opens an unnamed method (the piece starts inside some method). */
  method?: boolean;
}

interface Reading {
  prefix: string[];
  inContext: boolean;
  method?: boolean;
  /** Lines put after the piece: braces that close what it opens and the hunk cut off. */
  suffix?: string[];
}

/**
 * A hunk that ends inside a function (`pub fn next_token(&mut self, …) -> Token {` and a few lines of
 * its body) leaves its braces open, and the grammar then drops the unfinished definition: each reading
 * is also tried with the braces it leaves open closed after the piece (a rough count, strings included).
 */
function closedReadings(piece: Piece, readings: readonly Reading[], source: string): Reading[] {
  if (piece.language === 'python') return [];
  return readings.flatMap((r) => {
    const text = [...r.prefix, source].join('\n');
    const open = (text.match(/\{/g)?.length ?? 0) - (text.match(/\}/g)?.length ?? 0);
    return open > 0 ? [{ ...r, suffix: Array.from({ length: open }, () => '}') }] : [];
  });
}

/**
 * A hunk that starts at the end of the definition above it (`        })`, `    }`, `  ) {}`, then `pub fn len…`)
 * closes what it never opened: the same piece with those leading lines blanked (so that line numbers
 * stay) reads as the definitions that follow them.
 */
function withoutLeadingClosers(piece: Piece, source: string): string | undefined {
  if (piece.language === 'python') return undefined;
  const lines = source.split('\n');
  // `  ) {}`: the end of a constructor's parameters and its empty body closes too.
  const closers = lines.findIndex((l) => !/^\s*(?:[)\]}]+[;,]?\s*)?$/.test(l.replace(/\s*(?:\{\s*\}|\(\s*\)|\[\s*\])/g, '')));
  if (closers <= 0 || !lines.slice(0, closers).some((l) => l.trim())) return undefined;
  return [...lines.slice(0, closers).map(() => ''), ...lines.slice(closers)].join('\n');
}

/**
 * A hunk that starts inside a block of the function its context line opens (`return ErrOpen`, `}`, then the
 * rest of the body) closes braces it never opened, and the function would end at the first of them: read
 * after the context line and as many opened blocks (`{`) as it closes beyond the function's own, its
 * statements stand at the depth they have in the file.
 */
function innerBlocks(piece: Piece, source: string, reading: Reading): Reading | undefined {
  if (piece.language === 'python') return undefined;
  let depth = 0;
  let least = 0;
  for (const ch of source) {
    if (ch === '{') depth++;
    else if (ch === '}') least = Math.min(least, --depth);
  }
  const prefix = reading.prefix.join('\n');
  const opened = (prefix.match(/\{/g)?.length ?? 0) - (prefix.match(/\}/g)?.length ?? 0);
  const extra = -least - opened;
  return extra > 0 ? { ...reading, prefix: [...reading.prefix, ...Array.from({ length: extra }, () => '{')] } : undefined;
}

/**
 * A piece cut out of a brace language's struct, class, impl or function body ("idle []*Conn" lines
 * of a Go struct, methods of a TypeScript class) parses as something else at the top level, and the
 * closing braces of its container end nothing. Read after its context line (the line that opens the
 * container), and inside an unnamed method when the container is a class or impl (the piece may
 * start in the middle of a method), it parses as it stands in the file: the reading with the fewest
 * syntax errors is kept, the piece alone on a tie.
 */
export function parsePiece(parser: Parser, piece: Piece, source: string): ParsedPiece | undefined {
  const plain = parser.parse(source);
  if (!plain) return undefined;
  const context = piece.context?.trim() ?? '';
  const alone: Reading = { prefix: [], inContext: false };
  const readings: Reading[] = [alone];
  if (piece.language !== 'python' && /\{$/.test(context)) {
    readings.push({ prefix: [context], inContext: true });
    const method = METHOD_OPENER[family(piece.language) as 'js' | 'rust'];
    if (method?.container.test(context)) readings.push({ prefix: [context, method.opener], inContext: true, method: true });
  }
  const inner = readings.slice(1).flatMap((r) => innerBlocks(piece, source, r) ?? []);
  const opened = withoutLeadingClosers(piece, source);
  // The piece's readings besides the plain one, then the piece without its leading closers in each reading (a class's
  // methods after its constructor's end need the class around them).
  const candidates = [
    ...[...readings.slice(1), ...closedReadings(piece, readings, source)].map((reading) => ({ reading, text: source })),
    ...(opened === undefined ? [] : [...readings, ...closedReadings(piece, readings, opened)].map((reading) => ({ reading, text: opened }))),
    ...[...inner, ...closedReadings(piece, inner, source)].map((reading) => ({ reading, text: source })),
  ];
  let best: ParsedPiece = { tree: plain, shift: 0, inContext: false };
  let fewest = errorCount(plain.rootNode);
  for (const { reading, text } of candidates) {
    const tree = parser.parse([...reading.prefix, text, ...(reading.suffix ?? [])].join('\n'));
    const errors = tree ? errorCount(tree.rootNode) : Infinity;
    if (tree && errors < fewest) {
      best.tree.delete();
      best = { tree, shift: reading.prefix.length, inContext: reading.inContext, method: reading.method };
      fewest = errors;
    } else tree?.delete();
  }
  return best;
}

/** The names a hunk's context line (`def flush(self):`, `func (c *Cache) Get(`, `class Cache:`) declares. */
export function contextScope(context: string): string[] {
  return contextMatch(context)?.slice(1, 2) ?? [];
}

/** Whether a hunk's context line declares a function or method (not a class, struct, impl or module). */
export function contextIsFunction(context: string): boolean {
  const match = contextMatch(context);
  return match !== null && !/\b(?:class|struct|impl|interface|trait|enum|type|mod)\s/.test(match[0]);
}

function contextMatch(context: string): RegExpExecArray | null {
  return (
    /\b(?:def|class|function|func|fn|struct|impl|interface|trait|enum|type|mod)\s+(?:\([^)]*\)\s*)?(?:<[^>]*>\s*)?([A-Za-z_$][\w$]*)/.exec(context) ??
    /^\s*(?:(?:public|private|protected|static|async|export|default|override|readonly)\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::[^{]*)?\{?\s*$/.exec(context)
  );
}
