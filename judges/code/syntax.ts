// Syntax trees of pieces of files (../../resolver/grammars.ts, pieces.ts): tree-sitter recovers from the code cut
// off around a hunk and still yields the definitions, calls and `if`s inside it. `outline` turns a
// piece into those facts, with file line numbers; exports.ts reads what it exports, statements.ts
// where in its function a node sits.
import type { Node } from 'web-tree-sitter';
import { family, parserOf } from '../../resolver/grammars.ts';
import { parsePiece, type Piece } from './pieces.ts';
import { collectExports, isExported, type ExportFacts } from './exports.ts';
import { firstInFunction, firstInLoop, functionBody, inLoop, type FunctionBody, type OpenBody } from './statements.ts';

export type DefinitionKind = 'function' | 'class' | 'variable' | 'field' | 'parameter';

export interface Definition {
  name: string;
  kind: DefinitionKind;
  line: number;
  endLine: number;
  /** Exported from its module (JS/TS `export`, Rust `pub`, a capitalised Go name, a public top-level Python name). */
  exported: boolean;
  /** Names of the enclosing functions and classes, outermost first. */
  scope: string[];
  /** Parameters of a function. */
  parameters?: string[];
}

export interface Call {
  /** Last name of the callee: `exif_transpose` for `ImageOps.exif_transpose(im)`. */
  name: string;
  callee: string;
  line: number;
  scope: string[];
  /** The first statement of the function it is in (a docstring aside); undefined when the function's start is not in the piece. */
  first?: boolean;
  /** Inside a loop of its function (undefined: the function's body is not shown). */
  loop?: boolean;
  /** The first statement of the innermost loop it is in (undefined: in no loop, or the body is not shown). */
  firstInLoop?: boolean;
}

export interface Guard {
  condition: string;
  line: number;
  scope: string[];
  first?: boolean;
  /** Inside a loop of its function (undefined: the function's body is not shown). */
  loop?: boolean;
  /** The first statement of the innermost loop it is in (undefined: in no loop, or the body is not shown). */
  firstInLoop?: boolean;
}

export interface Usage {
  name: string;
  line: number;
  scope: string[];
}

export interface Outline extends ExportFacts {
  definitions: Definition[];
  calls: Call[];
  guards: Guard[];
  usages: Usage[];
  /** Bodies of the functions the piece shows, whole or in part. */
  functions: FunctionBody[];
  /**
   * The definition the hunk's context line opens (`func (p *Pool) Get() … {`, `impl Options {`), when the
   * piece parses better inside it: its name and the last line of the piece still inside it.
   */
  context?: { name: string; kind: DefinitionKind; endLine: number };
}

const DEFINITIONS: Record<'python' | 'js' | 'go' | 'rust', Record<string, DefinitionKind>> = {
  python: { function_definition: 'function', class_definition: 'class' },
  js: {
    function_declaration: 'function',
    generator_function_declaration: 'function',
    method_definition: 'function',
    class_declaration: 'class',
    abstract_class_declaration: 'class',
    interface_declaration: 'class',
    type_alias_declaration: 'class',
    enum_declaration: 'class',
    variable_declarator: 'variable',
    field_definition: 'field',
    public_field_definition: 'field',
    method_signature: 'function',
    function_signature: 'function',
    property_signature: 'field',
    abstract_method_signature: 'function',
  },
  go: {
    function_declaration: 'function',
    method_declaration: 'function',
    type_spec: 'class',
    var_spec: 'variable',
    const_spec: 'variable',
    field_declaration: 'field',
    method_elem: 'function',
  },
  rust: {
    function_item: 'function',
    function_signature_item: 'function',
    struct_item: 'class',
    enum_item: 'class',
    trait_item: 'class',
    union_item: 'class',
    type_item: 'class',
    mod_item: 'class',
    const_item: 'variable',
    static_item: 'variable',
    field_declaration: 'field',
    enum_variant: 'field',
  },
};

const CALLS = new Set(['call', 'call_expression', 'new_expression', 'macro_invocation']);
// Rust's `?` returns early on `None` or `Err`: "the emptiness check comes first" may be `let first = self.colors.first()?;`.
const GUARDS = new Set(['if_statement', 'if_expression', 'assert_statement', 'try_expression']);
const IDENTIFIERS = new Set(['identifier', 'property_identifier', 'field_identifier', 'type_identifier', 'shorthand_property_identifier']);

/** Strips the indentation every line shares (Python will not parse an indented piece). */
function dedent(lines: readonly string[]): string {
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(Math.min(common, /^[ \t]*/.exec(l)![0].length))).join('\n');
}

function nameOf(node: Node): string | undefined {
  const field = node.childForFieldName('name') ?? node.childForFieldName('pattern') ?? node.childForFieldName('left');
  const target = field ?? node.namedChildren.find((c) => c && IDENTIFIERS.has(c.type)) ?? undefined;
  if (!target) return undefined;
  if (IDENTIFIERS.has(target.type) || target.type === 'name') return target.text;
  const inner = firstIdentifier(target);
  return inner?.text;
}

function firstIdentifier(node: Node): Node | undefined {
  if (IDENTIFIERS.has(node.type)) return node;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const found = firstIdentifier(child);
    if (found) return found;
  }
  return undefined;
}

/** The names a JavaScript/TypeScript destructuring binds: `{ root, maxDepth = Infinity }`, `[a, ...rest]`, `{ a: { b } }`. */
function boundNames(pattern: Node): Node[] {
  switch (pattern.type) {
    case 'identifier':
    case 'shorthand_property_identifier_pattern':
      return [pattern];
    case 'pair_pattern':
      return pattern.childForFieldName('value') ? boundNames(pattern.childForFieldName('value')!) : [];
    case 'object_assignment_pattern':
    case 'assignment_pattern':
      return pattern.childForFieldName('left') ? boundNames(pattern.childForFieldName('left')!) : [];
    case 'object_pattern':
    case 'array_pattern':
    case 'rest_pattern':
      return pattern.namedChildren.flatMap((c) => (c ? boundNames(c) : []));
    default:
      return [];
  }
}

function parametersOf(node: Node): Node[] | undefined {
  const params = node.childForFieldName('parameters');
  if (!params) return undefined;
  const names: Node[] = [];
  for (const p of params.namedChildren) {
    if (!p || p.type === 'comment') continue;
    if (p.type === 'parameter_declaration') {
      for (const c of p.childrenForFieldName('name')) if (c) names.push(c);
      continue;
    }
    const named = p.childForFieldName('name') ?? p.childForFieldName('pattern') ?? p.childForFieldName('left');
    const pattern = [p, named].find((n) => n?.type === 'object_pattern' || n?.type === 'array_pattern');
    if (pattern) {
      names.push(...boundNames(pattern));
      continue;
    }
    const id = named && IDENTIFIERS.has(named.type) ? named : firstIdentifier(named ?? p);
    if (id && !['self', 'cls'].includes(id.text)) names.push(id);
  }
  return names;
}

/** Definitions, calls, guards and names used in a piece of code; undefined if its grammar is not loaded. */
export function outline(piece: Piece): Outline | undefined {
  const parser = parserOf(piece.language);
  if (!parser) return undefined;
  // A hunk that starts inside a Python docstring would read its closing quotes as an opening.
  const source = dedent(piece.lines);
  const quotes = piece.language === 'python' ? /"{3}|'{3}/.exec(source) : null;
  const insideString = quotes !== null && source.split(quotes[0]).length % 2 === 0;
  const parsed = parsePiece(parser, piece, insideString ? `${quotes![0]}\n${source}` : source);
  if (!parsed) return undefined;
  const { tree, inContext } = parsed;
  const shift = parsed.shift + (insideString ? 1 : 0);
  const kinds = DEFINITIONS[family(piece.language)];
  const result: Outline = { definitions: [], calls: [], guards: [], usages: [], functions: [], exportList: new Set(), declaresAll: false, wildcardSources: [] };
  let outer = piece.scope ?? [];
  const lineOf = (node: Node) => piece.start + node.startPosition.row - shift;
  // A function's end is shown when a non-blank line of the piece follows it, or its body's closing brace is the piece's
  // own (not one the parser supplied or the context added after the piece).
  const closedInPiece = (node: Node) => {
    const brace = node.childForFieldName('body')?.lastChild;
    return brace?.type === '}' && !brace.isMissing && brace.startPosition.row - shift < piece.lines.length;
  };
  const endShown = (node: Node) => piece.lines.slice(node.endPosition.row - shift + 1).some((l) => l.trim() !== '') || closedInPiece(node);
  const addBody = (node: Node, name: string, scope: string[], startShown: boolean) => {
    const body = functionBody(node, name, scope, startShown, lineOf);
    if (body) result.functions.push({ ...body, endShown: endShown(node) });
  };

  const visit = (node: Node, scope: string[], bodies: OpenBody[]) => {
    const kind = kinds[node.type];
    // A hunk that starts in `New()` and goes on to `func (l *Limiter) Allow()`: the enclosing function has ended.
    // In Go every function is declared at the top level, so one after `type Limiter struct {` is outside it too.
    const topLevelFunction = /^(?:function|method)_declaration$/.test(node.type) && piece.language === 'go';
    if (kind === 'function' && (piece.scopeIsFunction || topLevelFunction) && node.parent?.id === tree.rootNode.id) outer = [];
    let inner = scope;
    let innerBodies = bodies;
    const name = kind ? nameOf(node) : undefined;
    if (kind && inContext && node.startPosition.row === 1 && parsed.method) {
      // The unnamed method put around the piece's start: not a definition of the file.
      collectFacts(node, piece, [...outer, ...scope], bodies, result, lineOf);
      for (const child of node.namedChildren) if (child) visit(child, scope, [...bodies, { body: null }]);
      return;
    }
    if (kind && name && inContext && node.startPosition.row === 0) {
      // The context line's definition starts above the piece: its start, parameters and first statement are not shown.
      result.context = { name, kind, endLine: piece.start + node.endPosition.row - shift };
      if (kind === 'function') addBody(node, name, [], false);
      // Read inside its context line, the piece names its enclosing definition itself.
      outer = [];
      collectFacts(node, piece, [name], bodies, result, lineOf);
      const body = kind === 'function' ? [...bodies, { body: node.childForFieldName('body'), shownFrom: shift, endShown: closedInPiece(node) }] : bodies;
      for (const child of node.namedChildren) if (child) visit(child, [name], body);
      return;
    }
    if (kind) {
      if (name) {
        const definition: Definition = {
          name,
          kind,
          line: lineOf(node),
          endLine: piece.start + node.endPosition.row - shift,
          exported: isExported(node, piece.language, name, scope),
          scope: [...outer, ...scope],
        };
        if (kind === 'function') {
          addBody(node, name, [...outer, ...scope], true);
          const parameters = parametersOf(node);
          definition.parameters = parameters?.map((p) => p.text);
          for (const p of parameters ?? [])
            result.definitions.push({
              name: p.text,
              kind: 'parameter',
              line: lineOf(p),
              endLine: lineOf(p),
              exported: false,
              scope: [...outer, ...scope, name],
            });
        }
        result.definitions.push(definition);
        if (kind === 'function' || kind === 'class') {
          inner = [...scope, name];
          innerBodies = kind === 'function' ? [...bodies, { body: node.childForFieldName('body') }] : bodies;
        }
      }
    }
    collectFacts(node, piece, [...outer, ...inner], innerBodies, result, lineOf);
    for (const child of node.namedChildren) if (child) visit(child, inner, innerBodies);
  };
  visit(tree.rootNode, [], []);
  tree.delete();
  return result;
}

function collectFacts(node: Node, piece: Piece, scope: string[], bodies: OpenBody[], result: Outline, lineOf: (n: Node) => number): void {
  if (collectExports(node, piece, result)) return;
  const type = node.type;
  if (CALLS.has(type)) {
    const callee = node.childForFieldName('function') ?? node.childForFieldName('constructor') ?? node.childForFieldName('macro') ?? node.namedChildren[0];
    if (callee) {
      const last =
        callee.childForFieldName('attribute') ??
        callee.childForFieldName('property') ??
        callee.childForFieldName('field') ??
        callee.childForFieldName('name') ??
        callee;
      result.calls.push({
        name: last.text.replace(/^.*[.:]/, ''),
        callee: callee.text,
        line: lineOf(node),
        scope,
        first: firstInFunction(node, bodies),
        loop: inLoop(node, bodies),
        firstInLoop: firstInLoop(node, bodies),
      });
    }
  }
  if (type === 'macro_invocation' && /^(?:assert|assert_eq|assert_ne|debug_assert|ensure)$/.test(node.childForFieldName('macro')?.text ?? '')) {
    // Rust's `assert!(size > 0, …)` checks a condition as an `if` with a panic does.
    result.guards.push({
      condition: node.namedChildren.at(-1)?.text ?? '',
      line: lineOf(node),
      scope,
      first: firstInFunction(node, bodies),
      loop: inLoop(node, bodies),
      firstInLoop: firstInLoop(node, bodies),
    });
  } else if (GUARDS.has(type)) {
    const condition = node.childForFieldName('condition') ?? node.namedChildren[0];
    // Go's `if err := ctx.Err(); err != nil`: the statement before the condition is what is tested.
    const initializer = node.childForFieldName('initializer');
    result.guards.push({
      condition: [initializer?.text, condition?.text].filter(Boolean).join('; '),
      line: lineOf(node),
      scope,
      first: firstInFunction(node, bodies),
      loop: inLoop(node, bodies),
      firstInLoop: firstInLoop(node, bodies),
    });
  } else if (IDENTIFIERS.has(type)) {
    result.usages.push({ name: node.text, line: lineOf(node), scope });
  } else if (type === 'assignment' && piece.language === 'python') {
    const left = node.childForFieldName('left');
    if (left?.type === 'identifier') {
      result.definitions.push({
        name: left.text,
        kind: 'variable',
        line: lineOf(node),
        endLine: lineOf(node),
        exported: scope.length === 0 && !left.text.startsWith('_'),
        scope,
      });
    } else if (left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self') {
      const attribute = left.childForFieldName('attribute');
      if (attribute) result.definitions.push({ name: attribute.text, kind: 'field', line: lineOf(node), endLine: lineOf(node), exported: false, scope });
    }
  }
}
