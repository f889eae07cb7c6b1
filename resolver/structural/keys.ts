// What identifies a child of a syntax node across the three versions: its type and, for a
// definition, parameter, dict or object entry, the name it defines; otherwise its exact text. Two
// children with the same key are the same child, edited or not.
import type { Node } from 'web-tree-sitter';

/** A child's key, and whether it comes from a name (two different texts under one name conflict). */
export interface ChildKey {
  key: string;
  named: boolean;
}

// Fields that name what a node defines, and the nodes they do it for: `def name`, `f(name=...)`,
// `"key": value`, `x = ...`, Rust's `pattern: Type`, `let x`, match arms, `Struct { field: ... }`, `case 2:`.
const NAME_FIELDS: [string, RegExp][] = [
  ['name', /./],
  ['key', /./],
  ['left', /assignment/],
  ['pattern', /parameter|let_declaration|match_arm/],
  ['field', /field_initializer/],
  // A switch case by its label: two features adding `case 2:` with different bodies conflict.
  ['value', /case/],
];
// Wrappers whose key is their content's: `@decorator def f`, `export function f`, `x = 1` as a statement.
const WRAPPER_FIELDS = ['definition', 'declaration'];
const WRAPPERS = new Set(['expression_statement', 'lexical_declaration', 'variable_declaration', 'type_declaration', 'const_declaration', 'var_declaration']);
// A name is one token (`load`, `self.cache`, `"mode"`, `crate::Options`): a destructuring pattern
// such as `{ fill = ' ' }` is not, and is matched by its text like any other child.
const NAME = /^[\w$.:'"`-]{1,200}$/;

function nameOf(node: Node, depth = 0): string | undefined {
  for (const [field, types] of NAME_FIELDS) {
    if (!types.test(node.type)) continue;
    const named = node.childForFieldName(field);
    if (named && NAME.test(named.text)) return named.text;
  }
  // A Rust `impl Trait for Type` block, a Go method: the type (and trait, receiver) name it.
  const type = node.childForFieldName('type');
  if (node.type === 'impl_item' && type) return `${node.childForFieldName('trait')?.text ?? ''} for ${type.text}`;
  if (depth >= 2) return undefined;
  for (const field of WRAPPER_FIELDS) {
    const inner = node.childForFieldName(field);
    if (inner) return nameOf(inner, depth + 1);
  }
  if (WRAPPERS.has(node.type) && node.namedChildCount >= 1) return nameOf(node.namedChild(0)!, depth + 1);
  // A typed parameter (`a: int`): its first identifier.
  if (/parameter$/.test(node.type)) {
    const first = node.namedChild(0);
    if (first && /identifier$/.test(first.type)) return first.text;
  }
  return undefined;
}

export function keyOf(node: Node): ChildKey {
  const receiver = node.type === 'method_declaration' ? `${node.childForFieldName('receiver')?.text ?? ''} ` : '';
  // An import is its text: `from x import a` names `a` but is not the only import of `a`.
  const name = node.childCount > 0 && !node.type.includes('import') ? nameOf(node) : undefined;
  return name === undefined ? { key: `${node.type}\0${node.text}`, named: false } : { key: `${node.type}\0${receiver}${name}`, named: true };
}
