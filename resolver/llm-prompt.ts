// The prompt for one conflict region, from a template file (`--resolver-prompt`; default
// llm-prompt.txt next to this file, our own wording: the published resolver's training format
// could not be found). It is the one user message both backends send, with no system message: the
// paper's resolver is queried the same way, the marked block with a fixed context window at
// temperature 0. Values: {{file}}, {{ours_label}}, {{theirs_label}}, {{before_count}},
// {{after_count}}, {{excerpt}} (the context and the marked block, each line ending in a newline)
// and {{fence}} (backticks longer than any in the excerpt). One final newline of the file is not
// part of the template.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RegionParts } from './answer-check.ts';
import type { MergeLabels } from './merge-file.ts';
import { oneLine } from './bounded-text.ts';
import { ResolverModelError } from './models/model-error.ts';

const VALUES = ['file', 'ours_label', 'theirs_label', 'before_count', 'after_count', 'excerpt', 'fence'] as const;

export const DEFAULT_PROMPT_FILE = fileURLToPath(new URL('./llm-prompt.txt', import.meta.url));

/** The template of `file`; throws ResolverModelError (one line) for a file that cannot serve. */
export function loadPromptTemplate(file = DEFAULT_PROMPT_FILE): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/\n$/, '');
  } catch (error) {
    throw new ResolverModelError(
      `cannot read the resolver prompt ${oneLine(file, 200)} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}): check --resolver-prompt`,
    );
  }
  const unknown = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((m) => m[1]!).find((name) => !(VALUES as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw new ResolverModelError(
      `resolver prompt ${oneLine(file, 200)}: unknown value {{${oneLine(unknown, 40)}}}; use ${VALUES.map((v) => `{{${v}}}`).join(', ')}`,
    );
  }
  if (!text.includes('{{excerpt}}')) throw new ResolverModelError(`resolver prompt ${oneLine(file, 200)}: it never shows the conflict ({{excerpt}})`);
  return text;
}

/**
 * The longest prompt sent for one conflict region, in characters (about 2 000 tokens of code). The
 * paper's resolver was trained on sequences of at most 2 048 tokens, prompt and answer together
 * (appendix B), and the default GGUF context is 4 096 tokens with answers up to 2 048. A longer
 * region is not sent, rather than cut: the answer replaces the whole region, so a model shown part
 * of it could only drop the rest. The stage is then rejected and the union result stands.
 */
export const RESOLVER_PROMPT_BOUND_CHARS = 8000;

/** Why a prompt is not sent (one line), or undefined when it is within the bound. */
export function oversizePrompt(prompt: string): string | undefined {
  if (prompt.length <= RESOLVER_PROMPT_BOUND_CHARS) return undefined;
  const n = (x: number) => x.toLocaleString('en-US');
  return `its prompt would be ${n(prompt.length)} characters, over the ${n(RESOLVER_PROMPT_BOUND_CHARS)} a resolver is sent (a conflict is never cut), so it was not sent`;
}

let defaultTemplate: string | undefined;

export function buildPrompt(filePath: string, parts: RegionParts, labels: MergeLabels, template = (defaultTemplate ??= loadPromptTemplate())): string {
  const excerpt = [...parts.before, `<<<<<<< ${labels.ours}\n`, ...parts.ours, '=======\n', ...parts.theirs, `>>>>>>> ${labels.theirs}\n`, ...parts.after]
    .map((line) => (line.endsWith('\n') ? line : `${line}\n`))
    .join('');
  const values: Record<(typeof VALUES)[number], string> = {
    file: oneLine(filePath, 200),
    ours_label: labels.ours,
    theirs_label: labels.theirs,
    before_count: String(parts.before.length),
    after_count: String(parts.after.length),
    excerpt,
    fence: fenceFor(excerpt),
  };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: (typeof VALUES)[number]) => values[name]);
}

/** A fence longer than any backtick run at the start of an excerpt line. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/^\s*(`+)/gm)].map((match) => match[1]!.length));
  return '`'.repeat(longest + 1);
}
