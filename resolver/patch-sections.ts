// Splits a unified diff into one section per file, losslessly, and names the paths each section
// touches. Hunk line counts are followed, so a removed line such as `--- x` is never taken for
// a file header. Handles `git diff` output (including binary and rename sections) and plain
// `diff -u` output.

export interface PatchSection {
  /** The section's raw text, exactly as in the patch. */
  text: string;
  /** Paths the section touches (old and new names, without the a/ b/ prefix, no /dev/null). */
  paths: string[];
}

export interface SplitPatch {
  /** Text before the first section (e.g. a commit message); git apply ignores it. */
  preamble: string;
  sections: PatchSection[];
}

interface OpenSection {
  lines: string[];
  isGit: boolean;
  header: string;
  names: string[];
  sawFileHeader: boolean;
}

export function splitPatch(patch: string): SplitPatch {
  const lines = patch.split(/(?<=\n)/);
  const preamble: string[] = [];
  const open: OpenSection[] = [];
  let oldLeft = 0;
  let newLeft = 0;

  const current = (): OpenSection | undefined => open[open.length - 1];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const bare = line.replace(/\r?\n$/, '');
    const section = current();

    if (section && (oldLeft > 0 || newLeft > 0)) {
      // Inside a hunk: every line belongs to it until both sides are counted down.
      const first = bare[0];
      if (first === '-') oldLeft--;
      else if (first === '+') newLeft--;
      else if (first !== '\\') {
        oldLeft--;
        newLeft--;
      }
      section.lines.push(line);
      continue;
    }

    const next = (lines[i + 1] ?? '').replace(/\r?\n$/, '');
    if (bare.startsWith('diff --git ')) {
      open.push({ lines: [line], isGit: true, header: bare.slice('diff --git '.length), names: [], sawFileHeader: false });
      continue;
    }
    if (bare.startsWith('--- ') && next.startsWith('+++ ')) {
      const target =
        section && section.isGit && !section.sawFileHeader
          ? section
          : (open.push({ lines: [], isGit: false, header: '', names: [], sawFileHeader: false }), current()!);
      target.sawFileHeader = true;
      target.lines.push(line, lines[i + 1]!);
      target.names.push(headerPath(bare.slice(4), target.isGit), headerPath(next.slice(4), target.isGit));
      i++;
      continue;
    }
    if (!section) {
      preamble.push(line);
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(bare);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    } else if (section.isGit) {
      const renamed = /^(?:rename|copy) (?:from|to) (.*)$/.exec(bare);
      if (renamed) section.names.push(unquote(renamed[1]!));
    }
    section.lines.push(line);
  }

  return {
    preamble: preamble.join(''),
    sections: open.map((section) => ({
      text: section.lines.join(''),
      paths: sectionPaths(section),
    })),
  };
}

function sectionPaths(section: OpenSection): string[] {
  const names = section.names.filter((name) => name !== '' && name !== '/dev/null');
  if (names.length === 0 && section.isGit) names.push(...gitHeaderPaths(section.header));
  return [...new Set(names)];
}

/** The path of a `--- `/`+++ ` line: unquoted, timestamp dropped, a/ or b/ (or first component) removed. */
function headerPath(raw: string, isGit: boolean): string {
  const name = raw.startsWith('"') ? unquote(raw) : raw.split('\t')[0]!.trimEnd();
  if (name === '/dev/null') return name;
  if (isGit) return name.replace(/^[ab]\//, '');
  const slash = name.indexOf('/');
  return slash === -1 ? name : name.slice(slash + 1);
}

/** `diff --git a/X b/Y` when the section has no ---/+++ lines (binary, mode-only, empty file). */
function gitHeaderPaths(header: string): string[] {
  if (header.startsWith('"')) {
    const [first, rest] = readQuoted(header);
    const second = rest.trimStart();
    return [first, second.startsWith('"') ? readQuoted(second)[0] : second].map((p) => p.replace(/^[ab]\//, ''));
  }
  // Without a rename both names are equal: "a/N b/N".
  const n = (header.length - 5) / 2;
  const name = header.slice(2, 2 + n);
  if (Number.isInteger(n) && header === `a/${name} b/${name}`) return [name];
  const split = header.indexOf(' b/');
  return split === -1 ? [header] : [header.slice(0, split).replace(/^a\//, ''), header.slice(split + 3)];
}

/** Git's C-style quoting: "dir/na\303\257ve \"x\".py" */
export function unquote(text: string): string {
  return text.startsWith('"') ? readQuoted(text)[0] : text;
}

function readQuoted(text: string): [string, string] {
  const bytes: number[] = [];
  const escapes: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  let i = 1;
  for (; i < text.length && text[i] !== '"'; i++) {
    const ch = text[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const esc = text[++i] ?? '';
    if (/[0-7]/.test(esc)) {
      bytes.push(parseInt(text.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(escapes[esc] ?? esc.charCodeAt(0));
  }
  return [Buffer.from(bytes).toString('utf8'), text.slice(i + 1)];
}
