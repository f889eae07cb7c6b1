// Specificity of a conversation (paper section 5): how often messages name line numbers and file
// paths. Every occurrence counts, so "lines 10-20" twice is two line-number mentions.

const SOURCE_EXTENSIONS = [
  'py',
  'pyi',
  'pyx',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'mts',
  'cts',
  'go',
  'rs',
  'java',
  'kt',
  'scala',
  'rb',
  'php',
  'c',
  'h',
  'cc',
  'cpp',
  'cxx',
  'hpp',
  'cs',
  'swift',
  'm',
  'lua',
  'pl',
  'r',
  'jl',
  'ex',
  'exs',
  'erl',
  'hs',
  'clj',
  'dart',
  'vue',
  'svelte',
  'json',
  'yaml',
  'yml',
  'toml',
  'cfg',
  'ini',
  'md',
  'rst',
  'txt',
  'sh',
  'bash',
  'html',
  'css',
  'scss',
  'sql',
  'xml',
  'lock',
  'proto',
  'gradle',
  'mk',
];

/**
 * A file path: optional directories, then a name with a known source extension, not part of a URL
 * or a dotted module name. `filters.py`, `src/jinja2/filters.py`, `outlines/types/__init__.py`.
 */
export const FILE_PATH = new RegExp(String.raw`(?<![\w./:-])(?:[\w.-]+/)*[\w-][\w.-]*\.(?:${SOURCE_EXTENSIONS.join('|')})(?![\w/(-]|\.\w)`, 'gi');

// "to", "down to", "up to", "until", "through"/"thru", "..": every way a range's end is joined to its start.
const RANGE_JOIN = String.raw`-|–|—|\.\.|(?:(?:down|up|all the way)\s+)?to|through|thru|until|till|and|,`;
// The end may name the line again: "between line 28 and line 38", "from line 19 to line 26".
const RANGE_TAIL = String.raw`(?:\s*(?:${RANGE_JOIN})\s*(?:[Ll]ines?\s*)?\d+)*`;
const L_RANGE_TAIL = String.raw`(?:\s*(?:${RANGE_JOIN})\s*L?\d+)*`;

/** Words after numbers that make them a quantity, not lines: "lib.py 2-3 weeks ago". */
const UNIT = String.raw`%|x\b|times\b|(?:ms|s|sec|secs|seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?|[kmg]i?b|bytes?)\b`;

/**
 * A line reference: "line 26", "lines 72–77", "lines 10, 12 and 14", "line 28 and line 38", "L120-L130", or a
 * `path.py:120` suffix, or a range after a path ("src/meter.rs 13–17"). A range or list is one mention.
 */
export const LINE_REFERENCE = new RegExp(
  String.raw`\b(?:[Ll]ines?|LINES?)\s*#?\s*\d+${RANGE_TAIL}|\bL\d+${L_RANGE_TAIL}\b|(?<=\.[A-Za-z]{1,6}):\d+(?:-\d+)?\b|(?<=\.[A-Za-z]{1,6} )\d+\s?(?:[-–—]|\.\.)\s?\d+\b(?!\s*(?:${UNIT}))`,
  'g',
);

/** Product names that look like files. */
const NOT_FILES = /^(?:node|vue|next|nuxt|react|express|three|d3|chart|ember|backbone)\.js$/i;

export function filePathMentions(text: string): string[] {
  return [...text.matchAll(FILE_PATH)].map((m) => m[0]).filter((name) => !NOT_FILES.test(name));
}

export function lineNumberMentions(text: string): string[] {
  return [...text.matchAll(LINE_REFERENCE)].map((m) => m[0]);
}

export interface MentionCounts {
  lineNumberMentions: number;
  filePathMentions: number;
}

/** Two numbers joined by a dash or "..", not part of a version, date, path or percentage ("10-19", "40–53", "18..28"). */
export const BARE_RANGE = /(?<![\w.$/:#-])\d+\s?(?:[-–—]|\.\.)\s?\d+(?![\w%/:-]|\.\d)/g;

const numbersOf = (range: string) => [...range.matchAll(/\d+/g)].map((m) => m[0]).join('-');

export function countMentions(messages: readonly { message: string }[]): MentionCounts {
  let lines = 0;
  let files = 0;
  // "keep clear of 10-19" after "lines 10-19": bare numbers that repeat a range named as lines are lines too.
  const named = new Set<string>();
  for (const m of messages) {
    const references = lineNumberMentions(m.message);
    const repeated = [...m.message.replace(LINE_REFERENCE, ' ').matchAll(BARE_RANGE)].filter((r) => named.has(numbersOf(r[0])));
    for (const r of references) named.add(numbersOf(r));
    lines += references.length + repeated.length;
    files += filePathMentions(m.message).length;
  }
  return { lineNumberMentions: lines, filePathMentions: files };
}
