// The statements of a function's body (syntax.ts): whether a node is first in its function or in a
// loop of it, and each function's statements by line, where the placement checks
// (detectors/commitment-position.ts) find whether code sits first, last, in a loop or inside a `try`
// of its function, whatever that code is.
import type { Node } from 'web-tree-sitter';

export interface Span {
  line: number;
  endLine: number;
}

export interface FunctionBody extends Span {
  name: string;
  /** Enclosing functions and classes, outermost first (the function's own name not included). */
  scope: string[];
  /** The function's first line is in the piece: its first statement is known. */
  startShown: boolean;
  /** The function's last line is in the piece: its last statement is known. */
  endShown: boolean;
  /** Statements directly in the body, in order (comments and a docstring aside). */
  statements: Span[];
  /** Loops and `try`/`with` blocks anywhere in the body; a `try`'s or `with`'s own body (not its handlers) as `inner`. */
  blocks: (Span & { kind: 'loop' | 'try'; inner?: Span })[];
}

const LOOPS = new Set(['for_statement', 'while_statement', 'for_in_statement', 'do_statement', 'for_expression', 'while_expression', 'loop_expression']);
const TRIES = new Set(['try_statement', 'with_statement', 'defer_statement']);

/**
 * A Python comprehension (`[self.checkout(b) for b in ids]`) is a loop in all but name. A callback given to
 * `.map()` is not taken for one: "the clamp goes inside the loop" is not kept by a `map` before the loop.
 */
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

const isLoop = (n: Node) => LOOPS.has(n.type) || COMPREHENSIONS.has(n.type);

const isDocstring = (n: Node) => n.type === 'expression_statement' && n.namedChildren[0]?.type === 'string';

/** The node whose children are a body's statements: Go wraps a block's in a statement_list. */
const statementHolder = (body: Node): Node =>
  body.namedChildren.length === 1 && body.namedChildren[0]?.type === 'statement_list' ? body.namedChildren[0] : body;

/** The statement a node sits in, directly inside a function body. */
function statementInBody(node: Node, body: Node): Node | undefined {
  let current: Node | null = node;
  while (current && current.parent && current.parent.id !== body.id) current = current.parent;
  return current?.parent?.id === body.id ? current : undefined;
}

/**
 * A function body a node sits in. `shownFrom`: the piece starts inside the function (its context line opens
 * it), and rows before this one were put there to parse it, so its first statements are not shown;
 * `endShown`: its closing brace is the piece's own.
 */
export interface OpenBody {
  body: Node | null;
  shownFrom?: number;
  endShown?: boolean;
}

/**
 * Whether a node is in its function's first statement (a docstring aside); undefined where the body is not
 * shown. Where its start is not shown, a statement after another one of the body is not first, and the first
 * one shown may be.
 */
export function firstInFunction(node: Node, bodies: readonly OpenBody[]): boolean | undefined {
  const open = bodies.at(-1);
  const body = open?.body;
  if (!body) return undefined;
  const holder = statementHolder(body);
  const statements = holder.namedChildren.filter((c): c is Node => Boolean(c) && c!.type !== 'comment');
  const statement = statementInBody(node, holder);
  if (open.shownFrom !== undefined) return statement && statements.findIndex((s) => s.id === statement.id) > 0 ? false : undefined;
  const first = statements[0] && isDocstring(statements[0]) ? statements[1] : statements[0];
  return statement !== undefined && first !== undefined && statement.id === first.id;
}

/**
 * Whether a node is in the first statement of the innermost loop around it ("first thing each
 * iteration"); undefined outside a loop, or where the body is not shown.
 */
export function firstInLoop(node: Node, bodies: readonly OpenBody[]): boolean | undefined {
  const body = bodies.at(-1)?.body;
  if (!body) return undefined;
  for (let n = node.parent; n && n.id !== body.id; n = n.parent) {
    if (!LOOPS.has(n.type)) continue;
    const loopBody = n.childForFieldName('body');
    if (!loopBody) return undefined;
    const holder = statementHolder(loopBody);
    const first = holder.namedChildren.find((c) => c && c.type !== 'comment');
    const statement = statementInBody(node, holder);
    return statement !== undefined && !!first && statement.id === first.id;
  }
  return undefined;
}

/**
 * Whether a node sits in a loop of its function's body; undefined where the body is not shown. Where its
 * start is not shown, a node outside the loops shown is in none only when the body's closing brace is
 * shown (which fixes the depth of what the piece shows) and no block the piece starts in encloses it.
 */
export function inLoop(node: Node, bodies: readonly OpenBody[]): boolean | undefined {
  const open = bodies.at(-1);
  const body = open?.body;
  if (!body) return undefined;
  const holder = statementHolder(body);
  for (let n = node.parent; n && n.id !== body.id; n = n.parent) {
    if (isLoop(n)) return true;
    if (open.shownFrom !== undefined && n.id !== holder.id && n.startPosition.row < open.shownFrom) return undefined;
  }
  return open.shownFrom === undefined || open.endShown === true ? false : undefined;
}

/** The body's statements and blocks; undefined for a function without a body (a signature). */
export function functionBody(
  node: Node,
  name: string,
  scope: string[],
  startShown: boolean,
  lineOf: (n: Node) => number,
): Omit<FunctionBody, 'endShown'> | undefined {
  const fieldBody = node.childForFieldName('body');
  if (!fieldBody) return undefined;
  const body = statementHolder(fieldBody);
  const span = (n: Node): Span => ({ line: lineOf(n), endLine: lineOf(n) + n.endPosition.row - n.startPosition.row });
  const statements = body.namedChildren.filter((c): c is Node => Boolean(c) && c!.type !== 'comment' && !c!.isMissing);
  const blocks: FunctionBody['blocks'] = [];
  const visit = (n: Node) => {
    if (isLoop(n)) blocks.push({ kind: 'loop', ...span(n) });
    else if (TRIES.has(n.type)) {
      const inner = n.childForFieldName('body');
      blocks.push({ kind: 'try', ...span(n), ...(inner && { inner: span(inner) }) });
    }
    for (const child of n.namedChildren) if (child && !/function|lambda|closure|arrow/.test(child.type)) visit(child);
  };
  visit(body);
  return {
    name,
    scope,
    startShown,
    ...span(node),
    statements: (statements[0] && isDocstring(statements[0]) ? statements.slice(1) : statements).map(span),
    blocks,
  };
}
