// The prompt for one conflict region (our wording; the paper's resolver is queried the same way:
// the marked block with a fixed context window, temperature 0).
import type { RegionParts } from './answer-check.ts';
import type { MergeLabels } from './merge-file.ts';
import { oneLine } from './bounded-text.ts';

export function buildPrompt(filePath: string, parts: RegionParts, labels: MergeLabels): string {
  const excerpt = [
    ...parts.before,
    `<<<<<<< ${labels.ours}\n`, ...parts.ours,
    '=======\n', ...parts.theirs,
    `>>>>>>> ${labels.theirs}\n`,
    ...parts.after,
  ].map((line) => (line.endsWith('\n') ? line : `${line}\n`)).join('');
  const fence = fenceFor(excerpt);
  return [
    `Resolve the merge conflict in this excerpt of the file ${oneLine(filePath, 200)}.`,
    '',
    'Two developers changed the same code on separate branches. The first version is between',
    `"<<<<<<< ${labels.ours}" and "=======", the second between "=======" and ">>>>>>> ${labels.theirs}".`,
    `The excerpt also shows ${parts.before.length} unchanged line(s) before the conflict and ${parts.after.length} after it.`,
    '',
    'Rewrite the excerpt with the conflict resolved:',
    '- keep the changes of both developers, combined into one version, without duplicating code;',
    '- copy the lines before and after the conflict exactly as they are;',
    '- leave out the conflict markers;',
    '- answer with the rewritten excerpt only, in one code block, without explanation.',
    '',
    fence,
    excerpt + fence,
  ].join('\n');
}

/** A fence longer than any backtick run at the start of an excerpt line. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/^\s*(`+)/gm)].map((match) => match[1]!.length));
  return '`'.repeat(longest + 1);
}
