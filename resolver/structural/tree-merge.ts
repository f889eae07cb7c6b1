// The structural merge of one file: base, ours and theirs parsed with tree-sitter, the children of
// corresponding nodes matched by key (keys.ts) and merged as ordered lists: each side's deletions
// and edits applied, each side's additions inserted where they were made (both at the same place:
// ours, then theirs), a child both sides changed merged recursively, its lines merged if it is a leaf
// (in a docstring's or a comment's text, both sides' versions of lines both changed are kept). The text is spliced from the versions' own text, so
// formatting is kept. The result must parse cleanly and keep every line the sides added.
import type { Node, Parser } from 'web-tree-sitter';
import { keyOf, type ChildKey } from './keys.ts';
import { matchKeys, mergeLines } from './sequence.ts';

export interface StructuralLimits {
  /** Characters per version of the file. */
  maxChars: number;
  /** Syntax nodes per version. */
  maxNodes: number;
  /** Levels of nested changes. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: StructuralLimits = { maxChars: 1_000_000, maxNodes: 200_000, maxDepth: 400 };

/** merged: the file's merged text. conflict: the sides change the same thing. skipped: a bound or a version tree-sitter cannot parse. */
export type FileOutcome = { merged: string } | { conflict: string } | { skipped: string };

/** A child as the merge handles it: its text in its version, and the whitespace before it. */
interface Child {
  node: Node;
  key: ChildKey;
  text: string;
  /** Text between the previous sibling and this child in its version; undefined for a first child. */
  gap?: string;
  /** The gap of the next sibling in its version: the separator to use when this child lands after another. */
  nextGap?: string;
}

interface Children {
  /** Whitespace between the node's start and its first child, and after its last child. */
  head: string;
  list: Child[];
  tail: string;
}

class Stop extends Error {
  constructor(
    readonly kind: 'conflict' | 'skipped',
    message: string,
  ) {
    super(message);
  }
}

const at = (node: Node) => `line ${node.startPosition.row + 1}`;

/** Merges theirs into ours over base. Never throws for any input text. */
export function mergeFile(parser: Parser, base: string, ours: string, theirs: string, limits: StructuralLimits = DEFAULT_LIMITS): FileOutcome {
  const versions = [base, ours, theirs];
  const names = ['the base', 'patch ours', 'patch theirs'];
  if (versions.some((v) => v.length > limits.maxChars)) return { skipped: `file larger than ${limits.maxChars} characters` };
  const trees = versions.map((v) => parser.parse(v));
  try {
    for (let i = 0; i < 3; i++) {
      const root = trees[i]?.rootNode;
      if (!root) return { skipped: 'the parser gave no tree' };
      if (root.hasError) return { skipped: `${names[i]}'s version does not parse cleanly` };
      if (root.descendantCount > limits.maxNodes) return { skipped: `more than ${limits.maxNodes} syntax nodes` };
    }
    const [b, o, t] = trees.map((tree) => tree!.rootNode) as [Node, Node, Node];
    const merger = new Merger(versions as [string, string, string], limits.maxDepth);
    const text =
      merger.gap(base.slice(0, b.startIndex), ours.slice(0, o.startIndex), theirs.slice(0, t.startIndex), b) +
      merger.node(merger.child(b, 0), merger.child(o, 1), merger.child(t, 2), 0) +
      merger.gap(base.slice(b.endIndex), ours.slice(o.endIndex), theirs.slice(t.endIndex), b);
    return validate(parser, base, ours, theirs, text);
  } catch (error) {
    if (error instanceof Stop) return error.kind === 'conflict' ? { conflict: error.message } : { skipped: error.message };
    if (error instanceof RangeError) return { skipped: 'tree too deep to merge' };
    throw error;
  } finally {
    for (const tree of trees) tree?.delete();
  }
}

/** The merged code must parse cleanly, and each line a side added must be in it (or, where both sides changed that line, each of its words). */
function validate(parser: Parser, base: string, ours: string, theirs: string, merged: string): FileOutcome {
  const tree = parser.parse(merged);
  try {
    if (!tree || tree.rootNode.hasError) return { conflict: `the merged code does not parse${tree ? ` (${firstError(tree.rootNode)})` : ''}` };
  } finally {
    tree?.delete();
  }
  const mergedLines = new Set(merged.split('\n').map((l) => l.trim()));
  const words = new Set(merged.match(/\w+/g) ?? []);
  for (const side of [ours, theirs]) {
    for (const line of addedLines(base, side)) {
      if (mergedLines.has(line) || (line.match(/\w+/g) ?? []).every((w) => words.has(w))) continue;
      return { conflict: `the merge would drop a line a patch added: ${JSON.stringify(line.slice(0, 120))}` };
    }
  }
  return { merged };
}

function firstError(root: Node): string {
  const cursor = root.walk();
  try {
    for (;;) {
      const node = cursor.currentNode;
      if (node.isError || node.isMissing) return `${node.isMissing ? 'missing' : 'error'} at ${at(node)}`;
      if (node.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return 'error';
    }
  } finally {
    cursor.delete();
  }
}

/** Trimmed non-empty lines of `side` that are not base lines (line matching). */
function addedLines(base: string, side: string): string[] {
  const b = base.split('\n');
  const s = side.split('\n');
  const match = matchKeys(s, b);
  if (!match) return [];
  return s.filter((line, i) => match[i]! < 0 && line.trim() !== '').map((line) => line.trim());
}

class Merger {
  constructor(
    private readonly sources: [string, string, string],
    private readonly maxDepth: number,
  ) {}

  child(node: Node, version: number, gap?: string): Child {
    return { node, key: keyOf(node), text: this.sources[version]!.slice(node.startIndex, node.endIndex), gap };
  }

  /** Whitespace between children: a side's change wins; both changing it differently, ours. */
  gap(b: string | undefined, o: string | undefined, t: string | undefined, where: Node): string {
    const base = b ?? o ?? t;
    const ours = o ?? base;
    const theirs = t ?? base;
    if (ours === theirs || theirs === base) return ours ?? '';
    if (ours === base) return theirs ?? '';
    if (/\S/.test(ours ?? '') || /\S/.test(theirs ?? '')) throw new Stop('conflict', `both patches change the text around ${at(where)} differently`);
    return ours ?? '';
  }

  node(b: Child, o: Child, t: Child, depth: number): string {
    if (o.text === t.text || t.text === b.text) return o.text;
    if (o.text === b.text) return t.text;
    if (depth > this.maxDepth) throw new Stop('skipped', `changes nested more than ${this.maxDepth} levels deep`);
    const type = b.node.type;
    if (o.node.type !== type || t.node.type !== type) throw new Stop('conflict', `both patches change the ${type} at ${at(b.node)} differently`);
    const children = [0, 1, 2].map((v) => this.children([b, o, t][v]!.node, v));
    if (children.some((c) => c === undefined)) {
      // A leaf (a name, a string's or a comment's text): its lines.
      const lines = mergeLines(b.text, o.text, t.text, isDocumentation(b.node));
      if (lines === undefined) throw new Stop('conflict', `both patches change the same lines of the ${type} at ${at(b.node)}`);
      return lines;
    }
    const [cb, co, ct] = children as [Children, Children, Children];
    const where = b.node;
    return this.gap(cb.head, co.head, ct.head, where) + this.list([cb.list, co.list, ct.list], where, depth) + this.gap(cb.tail, co.tail, ct.tail, where);
  }

  /**
   * A node's children with the whitespace before, between and after them; undefined for a leaf, or
   * for a node with text outside its children (a string's text around its escapes): merged by lines.
   */
  private children(node: Node, version: number): Children | undefined {
    const nodes = node.children.filter((c): c is Node => c !== null);
    if (nodes.length === 0) return undefined;
    const source = this.sources[version]!;
    const list: Child[] = [];
    for (const [i, child] of nodes.entries()) {
      const previous = nodes[i - 1];
      if (previous && child.startIndex < previous.endIndex) return undefined;
      list.push(this.child(child, version, previous ? source.slice(previous.endIndex, child.startIndex) : undefined));
    }
    list.forEach((c, i) => (c.nextGap = list[i + 1]?.gap));
    const head = source.slice(node.startIndex, nodes[0]!.startIndex);
    const tail = source.slice(nodes.at(-1)!.endIndex, node.endIndex);
    if ([head, tail, ...list.map((c) => c.gap ?? '')].some((text) => /\S/.test(text))) return undefined;
    return { head, list, tail };
  }

  /** Three-way merge of ordered children. */
  private list([B, O, T]: [Child[], Child[], Child[]], parent: Node, depth: number): string {
    const keys = (list: Child[]) => list.map((c) => c.key.key);
    const mo = matchKeys(keys(B), keys(O));
    const mt = matchKeys(keys(B), keys(T));
    if (!mo || !mt) throw new Stop('skipped', `too many children to match at ${at(parent)}`);
    pairEdited(B, O, mo);
    pairEdited(B, T, mt);
    const addedO = insertions(O, mo);
    const addedT = insertions(T, mt);
    dropSameAdditions(addedO, addedT, parent);
    const deleted = (i: number) => i >= 0 && i < B.length && (mo[i]! < 0 || mt[i]! < 0);
    const out: Child[] = [];
    for (let anchor = -1; anchor < B.length; anchor++) {
      if (anchor >= 0) {
        const [i, oi, ti] = [anchor, mo[anchor]!, mt[anchor]!];
        if (oi < 0 || ti < 0) {
          const kept = oi >= 0 ? O[oi]! : ti >= 0 ? T[ti]! : undefined;
          if (kept && kept.text !== B[i]!.text)
            throw new Stop('conflict', `one patch removes the ${B[i]!.node.type} at ${at(B[i]!.node)}, the other changes it`);
        } else {
          const [b, o, t] = [B[i]!, O[oi]!, T[ti]!];
          out.push({ ...o, text: this.node(b, o, t, depth + 1), gap: this.gap(b.gap, o.gap, t.gap, b.node), nextGap: b.nextGap ?? o.nextGap });
        }
      }
      const fromO = addedO.get(anchor) ?? [];
      const fromT = addedT.get(anchor) ?? [];
      if (fromO.length > 0 && fromT.length > 0 && (deleted(anchor) || deleted(anchor + 1)))
        throw new Stop('conflict', `both patches replace the same part of the ${parent.type} at ${at(parent)}`);
      out.push(...fromO, ...fromT);
    }
    const fallback = B[1]?.gap ?? O[1]?.gap ?? T[1]?.gap ?? ' ';
    return out.map((c, i) => (i === 0 ? c.text : (c.gap ?? c.nextGap ?? fallback) + c.text)).join('');
  }
}

/**
 * Base children a side replaced by a child of the same type (an edited statement or argument whose
 * key is its text) are paired with it, in order, within each stretch between matched children, so
 * an edit is an edit rather than a deletion and an addition. Named children are not: another name
 * is another definition.
 */
function pairEdited(base: Child[], side: Child[], match: number[]): void {
  let sideFrom = 0;
  for (let i = 0; i < base.length;) {
    if (match[i]! >= 0) {
      sideFrom = match[i]! + 1;
      i++;
      continue;
    }
    let end = i;
    while (end < base.length && match[end]! < 0) end++;
    const sideEnd = end < base.length ? match[end]! : side.length;
    for (let k = i; k < end; k++) {
      const b = base[k]!;
      if (b.key.named || !b.node.isNamed) continue;
      let f = sideFrom;
      while (f < sideEnd && (side[f]!.node.type !== b.node.type || side[f]!.key.named)) f++;
      if (f < sideEnd) {
        match[k] = f;
        sideFrom = f + 1;
      }
    }
    i = end;
  }
}

/** A side's children that match no base child, by the base child they follow (-1: before the first). */
function insertions(side: Child[], match: number[]): Map<number, Child[]> {
  const anchorOf = new Map<number, number>();
  match.forEach((j, i) => j >= 0 && anchorOf.set(j, i));
  const added = new Map<number, Child[]>();
  let anchor = -1;
  side.forEach((child, j) => {
    const base = anchorOf.get(j);
    if (base !== undefined) anchor = base;
    else added.set(anchor, [...(added.get(anchor) ?? []), child]);
  });
  return added;
}

/**
 * Both sides adding the same thing: an identical run of additions at one place is kept once, and a
 * named child theirs adds (a parameter, an entry, a method) that ours adds too is dropped with the
 * punctuation that came with it. The same name added with different text is a conflict.
 */
function dropSameAdditions(ours: Map<number, Child[]>, theirs: Map<number, Child[]>, parent: Node): void {
  const oursNamed = new Map<string, string>();
  for (const run of ours.values()) for (const c of run) if (c.key.named && c.node.isNamed) oursNamed.set(c.key.key, c.text);
  for (const [anchor, run] of theirs) {
    const same = ours.get(anchor);
    if (same && same.length === run.length && same.every((c, i) => c.text === run[i]!.text)) {
      theirs.delete(anchor);
      continue;
    }
    const kept: Child[] = [];
    let pending: Child[] = [];
    let dropped = false;
    for (const c of run) {
      if (!c.node.isNamed || !c.key.named) {
        pending.push(c);
        continue;
      }
      const text = oursNamed.get(c.key.key);
      if (text !== undefined && text !== c.text)
        throw new Stop(
          'conflict',
          `both patches add ${c.node.type} ${JSON.stringify(c.key.key.split('\0')[1]!.slice(0, 60))} to the ${parent.type} at ${at(parent)}, differently`,
        );
      if (text === undefined) kept.push(...pending, c);
      else dropped = true;
      pending = [];
    }
    // Separators left after a dropped child went with it, unless something else is kept.
    if (!dropped || kept.length > 0 || pending.some((c) => c.node.isNamed)) kept.push(...pending);
    if (kept.length > 0) theirs.set(anchor, kept);
    else theirs.delete(anchor);
  }
}

/** A comment, or the text of a docstring (a string that is a statement of its own): text that does not run. */
function isDocumentation(node: Node): boolean {
  if (node.type.includes('comment')) return true;
  return node.type === 'string_content' && node.parent?.type === 'string' && node.parent.parent?.type === 'expression_statement';
}
