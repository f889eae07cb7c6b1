// What a piece of code exports (syntax.ts): whether a definition is exported where it is defined
// (Python's top level, Go's capital, Rust's plain `pub`, a JS/TS `export`), and the explicit export
// lists and whole-module re-exports (`__all__`, `from .x import a` in `__init__.py`, CommonJS
// `module.exports`, `export { a }`, `export * from`, `pub use`).
import type { Node } from 'web-tree-sitter';
import { family, type CodeLanguage } from '../../resolver/grammars.ts';
import type { Piece } from './pieces.ts';

/** What an outline (syntax.ts) records of a piece's exports beyond each definition's own flag. */
export interface ExportFacts {
  /** Names an explicit export list exports: `export { a }`, `__all__`, `from .x import a` in `__init__.py`, `pub use`. */
  exportList: Set<string>;
  /** A Python `__all__ = [...]` is shown whole: then it alone says what the module exports. */
  declaresAll: boolean;
  /** Modules re-exported whole: `export * from './percent'`, `from .loader import *` in `__init__.py`, `pub use crate::duration::*`. */
  wildcardSources: string[];
}

/** Rust's plain `pub`: `pub(crate)`, `pub(super)` and `pub(in …)` keep the item inside the crate. */
const isPublic = (node: Node) => node.namedChildren.some((c) => c?.type === 'visibility_modifier' && c.text === 'pub');

export function isExported(node: Node, language: CodeLanguage, name: string, scope: string[]): boolean {
  switch (family(language)) {
    case 'python':
      return scope.length === 0 && !name.startsWith('_');
    case 'go':
      return /^[A-Z]/.test(name);
    case 'rust':
      return isPublic(node);
    case 'js': {
      for (let up: Node | null = node.parent; up; up = up.parent) {
        if (up.type === 'export_statement') return true;
        if (!['lexical_declaration', 'variable_declaration'].includes(up.type)) break;
      }
      return node.parent?.type === 'export_statement';
    }
  }
}

const addStrings = (node: Node | null, names: Set<string>) => {
  for (const s of node?.descendantsOfType('string_content') ?? []) if (s) names.add(s.text);
};

/** Adds a node's export facts to the outline; whether the node was one (then it holds no other fact). */
export function collectExports(node: Node, piece: Piece, result: ExportFacts): boolean {
  const type = node.type;
  const python = piece.language === 'python';
  if (python && /^(?:augmented_)?assignment$/.test(type) && node.childForFieldName('left')?.text === '__all__') {
    const right = node.childForFieldName('right');
    addStrings(right, result.exportList);
    // `__all__ += [...]` extends a list shown elsewhere: only `__all__ = [...]` declares it whole.
    result.declaresAll ||= type === 'assignment' && !!right && /^(?:list|tuple)$/.test(right.type) && !right.hasError;
  } else if (python && type === 'call' && /^__all__\.(?:append|extend|insert)$/.test(node.childForFieldName('function')?.text ?? '')) {
    addStrings(node.childForFieldName('arguments'), result.exportList);
  } else if (type === 'import_from_statement' && piece.initModule) {
    if (node.namedChildren.some((c) => c?.type === 'wildcard_import')) result.wildcardSources.push(node.childForFieldName('module_name')?.text ?? '');
    for (const n of node.childrenForFieldName('name')) {
      if (!n) continue;
      const alias = n.type === 'aliased_import' ? n.childForFieldName('alias') : n;
      if (alias) result.exportList.add(alias.text.replace(/^.*\./, ''));
    }
  } else if (type === 'assignment_expression' && family(piece.language) === 'js') {
    // CommonJS: `module.exports = { a, b: c }`, `module.exports.a = …`, `exports.a = …`.
    const left = node.childForFieldName('left')?.text ?? '';
    const member = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(left);
    if (member) result.exportList.add(member[1]!);
    else if (/^module\.exports$/.test(left)) {
      const right = node.childForFieldName('right');
      for (const key of right?.type === 'object' ? right.namedChildren : []) {
        if (key?.type === 'shorthand_property_identifier') result.exportList.add(key.text);
        else if (key?.type === 'pair') result.exportList.add(key.childForFieldName('key')?.text ?? '');
      }
      if (right?.type === 'identifier') result.exportList.add(right.text);
    }
  } else if (type === 'export_statement' && node.children.some((c) => c?.type === '*') && !node.namedChildren.some((c) => c?.type === 'namespace_export')) {
    result.wildcardSources.push(node.childForFieldName('source')?.text.replace(/^['"]|['"]$/g, '') ?? '');
  } else if (type === 'export_specifier') {
    const name = node.childForFieldName('alias') ?? node.childForFieldName('name');
    if (name) result.exportList.add(name.text);
  } else if (type === 'use_declaration' && isPublic(node)) {
    const wildcard = node.namedChildren.find((c) => c?.type === 'use_wildcard');
    if (wildcard) result.wildcardSources.push(wildcard.text.replace(/::\*$/, ''));
    // The last name of each path: `Thing` in `pub use crate::x::Thing`.
    for (const id of node.descendantsOfType('identifier')) if (id && id.parent?.childForFieldName('path')?.id !== id.id) result.exportList.add(id.text);
  } else return false;
  return true;
}
