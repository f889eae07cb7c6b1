// The structural merge of one file, per shape and language: two features that change different
// children of the same syntax node both land; two that change the same child differently conflict.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGrammars, parserOf, type CodeLanguage } from '../../../../resolver/grammars.ts';
import { mergeFile, type FileOutcome } from '../../../../resolver/structural/tree-merge.ts';
import { mergeLines } from '../../../../resolver/structural/sequence.ts';

beforeAll(() => loadGrammars(['python', 'javascript', 'typescript', 'go', 'rust']));

const merge = (language: CodeLanguage, base: string, ours: string, theirs: string): FileOutcome => mergeFile(parserOf(language)!, base, ours, theirs);

interface Shape {
  name: string;
  language: CodeLanguage;
  base: string;
  ours: string;
  theirs: string;
  merged: string;
}

const SHAPES: Shape[] = [
  {
    name: 'both features extend one signature and its call',
    language: 'python',
    base: 'def load(path, mode="r"):\n    return open(path, mode)\n',
    ours: 'def load(path, mode="r", encoding=None):\n    return open(path, mode, encoding=encoding)\n',
    theirs: 'def load(path, mode="r", strict=False):\n    return open(path, mode, errors="strict" if strict else None)\n',
    merged: 'def load(path, mode="r", encoding=None, strict=False):\n    return open(path, mode, encoding=encoding, errors="strict" if strict else None)\n',
  },
  {
    name: 'both features append to one docstring',
    language: 'python',
    base: 'def load(path):\n    """Load a file.\n\n    Args:\n        path: where it is.\n    """\n    return path\n',
    ours: 'def load(path, a=1):\n    """Load a file.\n\n    Args:\n        path: where it is.\n        a: the first.\n    """\n    return path\n',
    theirs: 'def load(path, b=2):\n    """Load a file.\n\n    Args:\n        path: where it is.\n        b: the second.\n    """\n    return path\n',
    merged:
      'def load(path, a=1, b=2):\n    """Load a file.\n\n    Args:\n        path: where it is.\n        a: the first.\n        b: the second.\n    """\n    return path\n',
  },
  {
    name: 'both features open an Args section in a one-line docstring',
    language: 'python',
    base: 'def f():\n    """Do it."""\n',
    ours: 'def f():\n    """Do it.\n\n    Args:\n        a: one.\n    """\n',
    theirs: 'def f():\n    """Do it.\n\n    Args:\n        b: two.\n    """\n',
    merged: 'def f():\n    """Do it.\n\n    Args:\n        a: one.\n        b: two.\n    """\n',
  },
  {
    name: 'both features add an elif branch',
    language: 'python',
    base: 'def kind(x):\n    if x == 1:\n        return "one"\n    else:\n        return "many"\n',
    ours: 'def kind(x):\n    if x == 1:\n        return "one"\n    elif x == 2:\n        return "two"\n    else:\n        return "many"\n',
    theirs: 'def kind(x):\n    if x == 1:\n        return "one"\n    elif x == 0:\n        return "none"\n    else:\n        return "many"\n',
    merged:
      'def kind(x):\n    if x == 1:\n        return "one"\n    elif x == 2:\n        return "two"\n    elif x == 0:\n        return "none"\n    else:\n        return "many"\n',
  },
  {
    name: 'both features add a match arm',
    language: 'python',
    base: 'def kind(x):\n    match x:\n        case 1:\n            return "one"\n        case _:\n            return "many"\n',
    ours: 'def kind(x):\n    match x:\n        case 1:\n            return "one"\n        case 2:\n            return "two"\n        case _:\n            return "many"\n',
    theirs:
      'def kind(x):\n    match x:\n        case 1:\n            return "one"\n        case 0:\n            return "none"\n        case _:\n            return "many"\n',
    merged:
      'def kind(x):\n    match x:\n        case 1:\n            return "one"\n        case 2:\n            return "two"\n        case 0:\n            return "none"\n        case _:\n            return "many"\n',
  },
  {
    name: 'both features add dict entries, list entries and imports',
    language: 'python',
    base: 'import os\n\nOPTIONS = {\n    "mode": "r",\n}\nNAMES = ["a"]\n',
    ours: 'import os\nimport sys\n\nOPTIONS = {\n    "mode": "r",\n    "encoding": None,\n}\nNAMES = ["a", "b"]\n',
    theirs: 'import os\nimport json\n\nOPTIONS = {\n    "mode": "r",\n    "strict": False,\n}\nNAMES = ["a", "c"]\n',
    merged: 'import os\nimport sys\nimport json\n\nOPTIONS = {\n    "mode": "r",\n    "encoding": None,\n    "strict": False,\n}\nNAMES = ["a", "b", "c"]\n',
  },
  {
    name: 'both features import more names from one module',
    language: 'python',
    base: 'from os import path\n',
    ours: 'from os import path, sep\n',
    theirs: 'from os import path, getcwd\n',
    merged: 'from os import path, sep, getcwd\n',
  },
  {
    name: 'both features add a method to one class',
    language: 'python',
    base: 'class Table:\n    def rows(self):\n        return []\n',
    ours: 'class Table:\n    def rows(self):\n        return []\n\n    def width(self):\n        return 1\n',
    theirs: 'class Table:\n    def rows(self):\n        return []\n\n    def height(self):\n        return 2\n',
    merged: 'class Table:\n    def rows(self):\n        return []\n\n    def width(self):\n        return 1\n\n    def height(self):\n        return 2\n',
  },
  {
    name: 'both features add the same parameter: it is kept once',
    language: 'python',
    base: 'def f(a):\n    return a\n',
    ours: 'def f(a, strict=False):\n    return a\n\ndef g():\n    pass\n',
    theirs: 'def f(a, strict=False):\n    return a if strict else None\n',
    merged: 'def f(a, strict=False):\n    return a if strict else None\n\ndef g():\n    pass\n',
  },
  {
    name: 'both features rewrite one docstring line: documentation keeps both versions',
    language: 'python',
    base: 'def f(x):\n    """Do it.\n\n    Raises:\n        ValueError: if bad.\n    """\n',
    ours: 'def f(x, a=1):\n    """Do it.\n\n    Raises:\n        ValueError: if bad, or a is.\n    """\n',
    theirs: 'def f(x, b=2):\n    """Do it.\n\n    Raises:\n        ValueError: if bad, or b is.\n    """\n',
    merged: 'def f(x, a=1, b=2):\n    """Do it.\n\n    Raises:\n        ValueError: if bad, or a is.\n        ValueError: if bad, or b is.\n    """\n',
  },
  {
    name: 'both features extend one signature',
    language: 'javascript',
    base: 'export function render(rows, width) {\n  return rows.map((r) => pad(r, width));\n}\n',
    ours: 'export function render(rows, width, align) {\n  return rows.map((r) => pad(r, width, align));\n}\n',
    theirs: 'export function render(rows, width, border) {\n  return rows.map((r) => pad(r, width), border);\n}\n',
    merged: 'export function render(rows, width, align, border) {\n  return rows.map((r) => pad(r, width, align), border);\n}\n',
  },
  {
    name: 'both features add object entries and imports',
    language: 'javascript',
    base: "import { a } from './a.js';\n\nexport const DEFAULTS = {\n  width: 80,\n};\n",
    ours: "import { a } from './a.js';\nimport { b } from './b.js';\n\nexport const DEFAULTS = {\n  width: 80,\n  align: 'left',\n};\n",
    theirs: "import { a } from './a.js';\nimport { c } from './c.js';\n\nexport const DEFAULTS = {\n  width: 80,\n  border: '|',\n};\n",
    merged:
      "import { a } from './a.js';\nimport { b } from './b.js';\nimport { c } from './c.js';\n\nexport const DEFAULTS = {\n  width: 80,\n  align: 'left',\n  border: '|',\n};\n",
  },
  {
    name: 'both features add a method to one class and a switch case',
    language: 'typescript',
    base: 'export class Table {\n  rows(): number[] {\n    return [];\n  }\n}\n\nexport function kind(x: number): string {\n  switch (x) {\n    case 1:\n      return "one";\n    default:\n      return "many";\n  }\n}\n',
    ours: 'export class Table {\n  rows(): number[] {\n    return [];\n  }\n\n  width(): number {\n    return 1;\n  }\n}\n\nexport function kind(x: number): string {\n  switch (x) {\n    case 1:\n      return "one";\n    case 2:\n      return "two";\n    default:\n      return "many";\n  }\n}\n',
    theirs:
      'export class Table {\n  rows(): number[] {\n    return [];\n  }\n\n  height(): number {\n    return 2;\n  }\n}\n\nexport function kind(x: number): string {\n  switch (x) {\n    case 1:\n      return "one";\n    case 0:\n      return "none";\n    default:\n      return "many";\n  }\n}\n',
    merged:
      'export class Table {\n  rows(): number[] {\n    return [];\n  }\n\n  width(): number {\n    return 1;\n  }\n\n  height(): number {\n    return 2;\n  }\n}\n\nexport function kind(x: number): string {\n  switch (x) {\n    case 1:\n      return "one";\n    case 2:\n      return "two";\n    case 0:\n      return "none";\n    default:\n      return "many";\n  }\n}\n',
  },
  {
    name: 'both features extend a signature, a struct and an import block',
    language: 'go',
    base: 'package table\n\nimport (\n\t"fmt"\n)\n\ntype Options struct {\n\tWidth int\n}\n\nfunc Render(rows []string, width int) string {\n\treturn fmt.Sprint(rows, width)\n}\n',
    ours: 'package table\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\ntype Options struct {\n\tWidth int\n\tAlign string\n}\n\nfunc Render(rows []string, width int, align string) string {\n\treturn fmt.Sprint(rows, width, strings.ToLower(align))\n}\n',
    theirs:
      'package table\n\nimport (\n\t"fmt"\n\t"os"\n)\n\ntype Options struct {\n\tWidth  int\n\tBorder string\n}\n\nfunc Render(rows []string, width int, border string) string {\n\treturn fmt.Sprint(rows, width, border, os.Args)\n}\n',
    merged:
      'package table\n\nimport (\n\t"fmt"\n\t"strings"\n\t"os"\n)\n\ntype Options struct {\n\tWidth  int\n\tAlign string\n\tBorder string\n}\n\nfunc Render(rows []string, width int, align string, border string) string {\n\treturn fmt.Sprint(rows, width, strings.ToLower(align), border, os.Args)\n}\n',
  },
  {
    name: 'both features add match arms, struct fields and impl methods',
    language: 'rust',
    base: 'pub struct Options {\n    pub width: usize,\n}\n\nimpl Options {\n    pub fn width(&self) -> usize {\n        self.width\n    }\n}\n\npub fn kind(x: u8) -> &\'static str {\n    match x {\n        1 => "one",\n        _ => "many",\n    }\n}\n',
    ours: 'pub struct Options {\n    pub width: usize,\n    pub align: bool,\n}\n\nimpl Options {\n    pub fn width(&self) -> usize {\n        self.width\n    }\n\n    pub fn align(&self) -> bool {\n        self.align\n    }\n}\n\npub fn kind(x: u8) -> &\'static str {\n    match x {\n        1 => "one",\n        2 => "two",\n        _ => "many",\n    }\n}\n',
    theirs:
      'pub struct Options {\n    pub width: usize,\n    pub border: char,\n}\n\nimpl Options {\n    pub fn width(&self) -> usize {\n        self.width\n    }\n\n    pub fn border(&self) -> char {\n        self.border\n    }\n}\n\npub fn kind(x: u8) -> &\'static str {\n    match x {\n        1 => "one",\n        0 => "none",\n        _ => "many",\n    }\n}\n',
    merged:
      'pub struct Options {\n    pub width: usize,\n    pub align: bool,\n    pub border: char,\n}\n\nimpl Options {\n    pub fn width(&self) -> usize {\n        self.width\n    }\n\n    pub fn align(&self) -> bool {\n        self.align\n    }\n\n    pub fn border(&self) -> char {\n        self.border\n    }\n}\n\npub fn kind(x: u8) -> &\'static str {\n    match x {\n        1 => "one",\n        2 => "two",\n        0 => "none",\n        _ => "many",\n    }\n}\n',
  },
];

interface TrueConflict {
  name: string;
  language: CodeLanguage;
  base: string;
  ours: string;
  theirs: string;
}

const CONFLICTS: TrueConflict[] = [
  {
    name: 'both features change one default differently',
    language: 'python',
    base: 'def f(a, mode="r"):\n    return a\n',
    ours: 'def f(a, mode="w"):\n    return a\n',
    theirs: 'def f(a, mode="x"):\n    return a\n',
  },
  {
    name: 'both features add one parameter with different defaults',
    language: 'python',
    base: 'def f(a):\n    return a\n',
    ours: 'def f(a, strict=False):\n    return a\n',
    theirs: 'def f(a, strict=True):\n    return a\n',
  },
  {
    name: 'one feature deletes a function the other changes',
    language: 'python',
    base: 'def f():\n    return 1\n\n\ndef g():\n    return 2\n',
    ours: 'def g():\n    return 2\n',
    theirs: 'def f():\n    return 3\n\n\ndef g():\n    return 2\n',
  },
  {
    name: 'both features rewrite the same line of a string that runs',
    language: 'python',
    base: 'def f():\n    return """Do it."""\n',
    ours: 'def f():\n    return """Do it now."""\n',
    theirs: 'def f():\n    return """Do it later."""\n',
  },
  {
    name: 'both features change one return value',
    language: 'javascript',
    base: 'function f() {\n  return 1;\n}\n',
    ours: 'function f() {\n  return 2;\n}\n',
    theirs: 'function f() {\n  return 3;\n}\n',
  },
  {
    name: 'both features give one struct field different types',
    language: 'go',
    base: 'package p\n\ntype T struct {\n\tA int\n}\n',
    ours: 'package p\n\ntype T struct {\n\tA int64\n}\n',
    theirs: 'package p\n\ntype T struct {\n\tA string\n}\n',
  },
  {
    name: 'both features add the same match arm with different bodies',
    language: 'rust',
    base: 'fn k(x: u8) -> u8 {\n    match x {\n        _ => 0,\n    }\n}\n',
    ours: 'fn k(x: u8) -> u8 {\n    match x {\n        1 => 1,\n        _ => 0,\n    }\n}\n',
    theirs: 'fn k(x: u8) -> u8 {\n    match x {\n        1 => 2,\n        _ => 0,\n    }\n}\n',
  },
];

describe('structural merge of one file', () => {
  for (const shape of SHAPES) {
    it(`${shape.language}: ${shape.name}`, () => {
      expect(merge(shape.language, shape.base, shape.ours, shape.theirs)).toEqual({ merged: shape.merged });
    });
  }

  for (const conflict of CONFLICTS) {
    it(`${conflict.language}: ${conflict.name} stays a conflict`, () => {
      expect(merge(conflict.language, conflict.base, conflict.ours, conflict.theirs)).toHaveProperty('conflict');
    });
  }

  it('leaves a file to the next stage when a version does not parse, or a bound is passed', () => {
    expect(merge('python', 'def f(:\n', 'def f(a:\n', 'def f(b:\n')).toEqual({ skipped: "the base's version does not parse cleanly" });
    const big = mergeFile(parserOf('python')!, 'x = 1\n', 'x = 2\n', 'x = 3\n', { maxChars: 3, maxNodes: 10, maxDepth: 5 });
    expect(big).toEqual({ skipped: 'file larger than 3 characters' });
    const many = mergeFile(parserOf('python')!, 'x = 1\n', 'x = 2\n', 'x = 3\n', { maxChars: 100, maxNodes: 3, maxDepth: 5 });
    expect(many).toEqual({ skipped: 'more than 3 syntax nodes' });
  });

  it('a side that changed nothing gives the other side, byte for byte', () => {
    const ours = 'def f(a):\r\n    return a  # kept\r\n';
    expect(merge('python', 'def f():\r\n    pass\r\n', ours, 'def f():\r\n    pass\r\n')).toEqual({ merged: ours });
  });
});

describe('line merge of a leaf', () => {
  it('applies changes to separate lines and keeps both insertions at one place, ours first', () => {
    expect(mergeLines('a\nb\nc\nd', 'A\nb\nc\nd', 'a\nb\nc\nD')).toBe('A\nb\nc\nD');
    expect(mergeLines('a\nz', 'a\nb\nz', 'a\nc\nz')).toBe('a\nb\nc\nz');
  });

  it('conflicts where both change the same or adjacent lines', () => {
    expect(mergeLines('a\nb', 'A\nb', 'a2\nb')).toBeUndefined();
    expect(mergeLines('a\nb', 'A\nb', 'a\nB')).toBeUndefined();
  });
});
