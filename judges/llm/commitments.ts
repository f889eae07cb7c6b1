// Broken checkable commitments with a model reading the promises: the model lists each promise,
// completion claim and accepted request with its kind and target (definitions.ts), and the
// detectors' code checks (detectors/commitments.ts) decide on the patches and the merged code
// whether each is kept. The model only reads the words, where the rules miss wordings they were not
// written for (judges/README.md, "Limits"); whether the code keeps a commitment stays a check on
// syntax trees, with the code line as evidence. A target the checks cannot read is dropped, as is a
// quote that is not in its message.
import { z } from 'zod';
import { CHECKABLE_COMMITMENT, COMMITMENT_KIND_DEFINITIONS, definitionLines } from '../definitions.ts';
import { IDENTIFIER, lastName } from '../detectors/commitment-code.ts';
import type { Commitment, Target, TargetKind } from '../detectors/commitment-extract.ts';
import { brokenCommitments } from '../detectors/commitments.ts';
import { DETECTORS_VERSION, prepareDetectors } from '../detectors/index.ts';
import type { JudgeInput } from '../types.ts';
import { normalizeWhitespace } from '../text.ts';
import { checkQuote } from './evidence.ts';
import type { DroppedLabel, JudgedLabels, LlmJudge } from './judge.ts';
import { conversationPrompt, type Material } from './material.ts';

const TARGET_KINDS = ['exists', 'exported', 'untouched_symbol', 'untouched_lines', 'placement'] as const satisfies readonly TargetKind[];
const POSITIONS = ['first', 'last', 'before', 'after', 'around'] as const;

/** Models write `close()`, `` `Session.close(timeout)` ``: the name is what the checks look up (an IDENTIFIER without the call). */
const bareName = (name: string) =>
  name
    .trim()
    .replace(/^`+|`+$/g, '')
    .replace(/\(.*\)$/s, '')
    .trim();

// Spellings models use for the same answer are taken ("untouched lines", "Claimed", "first statement",
// one name as a string, "10-20"); anything else fails the answer, which gets its second chance.
const optionalText = z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), z.string().nullish());
const list = z.preprocess((v) => (v === null || v === undefined ? [] : typeof v === 'string' ? [v] : v), z.array(z.string()));
const word = (normal: (text: string) => string) => (v: unknown) => (typeof v === 'string' ? normal(v.trim().toLowerCase()) || null : v);
const range = z.preprocess(
  (v) => {
    const parts = typeof v === 'string' ? /^\s*(\d+)\s*(?:-|–|\.\.|to)\s*(\d+)\s*$/.exec(v) : null;
    return parts ? [parts[1], parts[2]] : v;
  },
  z.tuple([z.coerce.number().int(), z.coerce.number().int()]).nullish(),
);

const entrySchema = z.object({
  message: z.coerce.number().int(),
  quote: z.string(),
  stance: z.preprocess(
    word((w) => w.replace(/^promised$/, 'promise').replace(/^claimed$/, 'claim')),
    z.enum(['promise', 'claim']),
  ),
  request: z.coerce.number().int().nullish(),
  request_quote: optionalText,
  kind: z.preprocess(
    word((w) => w.replace(/[\s-]+/g, '_')),
    z.enum(TARGET_KINDS),
  ),
  names: list,
  files: list,
  lines: range,
  scope: optionalText,
  position: z.preprocess(
    word((w) => w.split(/\s/)[0]!),
    z.enum(POSITIONS).nullish(),
  ),
  anchor: optionalText,
  anchor_words: list,
  loop: z.boolean().nullish(),
  guard: list,
  module: optionalText,
  parameters_only: z.boolean().nullish(),
});
type Entry = z.infer<typeof entrySchema>;

const answerSchema = z.object({ commitments: z.array(entrySchema).default([]) });
export type CommitmentsAnswer = z.infer<typeof answerSchema>;

const SYSTEM = `You read the messages that coding agents exchanged while each of them implemented a different feature of the same repository, on separate branches that are merged afterwards. You list the checkable commitments in them; a program then checks each one against the code, so list what was said, not whether it was kept.

What to list: ${CHECKABLE_COMMITMENT}.
Its stance is "promise" for work to come ("I'll add…", "I won't touch…") and "claim" for work reported done ("Added…", "is in", "✓ done"). An agent that accepts a partner's request ("Sure, will do", "On it") commits to the request's own target: give the requesting message's id as "request" and a passage of it as "request_quote".

Kinds, and the target fields each uses:
${definitionLines(COMMITMENT_KIND_DEFINITIONS.filter((d) => d.id !== 'accepted_request'))}

Target fields:
- names: the symbols as code writes them, without parentheses or arguments ("Session.close", "max_batch_size"); for a placement, the call that sits there (not the call it sits before or after, nor what a check raises). Resolve a reference ("your helper", "it") to the name the conversation gave it.
- files: the file paths named for the target, if any.
- lines: untouched_lines only, [first, last] line of the original file.
- scope: the function a parameter belongs to, or the class or struct a field or method is added to (exists); the function the code sits in (placement); the function whose existing parameters stay (untouched_symbol with parameters_only).
- position, anchor, anchor_words, loop: placement only: "first" or "last" statement of the function, "before" or "after" the call named in anchor (or, where the message names no call, the code that anchor_words describe: ["lock"] for "after taking the lock"), "around" it (a try or a wrapping call); loop true when it sits inside the function's loop.
- guard: placement of a check: the names its condition tests as the message gives them ("_closed"), else its words ("closed" for "the closed check"); no values.
- module: exported only, the module or file it is exported from.
- parameters_only: untouched_symbol only, true when only the existing parameters of scope must stay.

Leave out: offers ("I can add it if you want"), questions, conditional plans, commitments with no checkable target ("I'll handle the edge cases"), and commitments the sender takes back in a later message. One entry per target: a message promising two symbols of one kind gives one entry naming both.

Answer with one JSON object and nothing else:
{"commitments": [{"message": <message id>, "quote": "<passage of that message stating the commitment>", "stance": "promise|claim", "request": <id or null>, "request_quote": "<passage or null>", "kind": "<${TARGET_KINDS.join('|')}>", "names": [], "files": [], "lines": null, "scope": null, "position": null, "anchor": null, "anchor_words": [], "loop": false, "guard": [], "module": null, "parameters_only": false}]}
When there is none: {"commitments": []}`;

function prompt(input: JudgeInput) {
  return { system: SYSTEM, ...conversationPrompt(input, { closing: 'Answer with the JSON object described in the instructions.' }) };
}

/**
 * A check's guard words as the checks read them: a name the message writes as code (in backticks)
 * stays as written, since the condition must contain it (`_closed`, `Err`); other words are
 * descriptions ("Zero-Capacity", "picks > pool"), taken as lower-case words, and values ("1..3999")
 * name nothing.
 */
function guardWords(words: readonly string[], message: string): string[] {
  const code = [...message.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return words.flatMap((word) => {
    const w = word.trim();
    if (code.some((snippet) => snippet.includes(w)) && /[A-Za-z_]/.test(w)) return [w];
    return (w.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []).filter((t) => !/^(?:check|guard|if)$/.test(t));
  });
}

/** The target the checks read, or why the entry gives none they can read. */
function targetOf(e: Entry, message: string): Target | string {
  const symbols = e.names.map(bareName);
  const bad = symbols.find((n) => !IDENTIFIER.test(n));
  if (bad !== undefined) return `"${bad.slice(0, 60)}" is not a code name`;
  const scope = e.scope ? lastName(bareName(e.scope)) : undefined;
  const base = { names: symbols, files: e.files.map((f) => f.trim()).filter(Boolean) };
  switch (e.kind) {
    case 'exists':
    case 'exported':
      if (symbols.length === 0) return `${e.kind} names no symbol`;
      return { kind: e.kind, ...base, ...(scope && e.kind === 'exists' && { scope }), ...(e.module && e.kind === 'exported' && { module: e.module.trim() }) };
    case 'untouched_symbol':
      if (e.parameters_only) return scope ? { kind: e.kind, ...base, scope, parameters: true } : 'parameters_only needs a scope';
      if (symbols.length === 0 && base.files.length === 0) return 'untouched_symbol names no symbol and no file';
      return { kind: e.kind, ...base };
    case 'untouched_lines': {
      const [first, last] = e.lines ?? [];
      if (first === undefined || last === undefined || first < 1 || last < first) return 'untouched_lines needs a range [first, last] of positive lines';
      // No file: the checks take the file the conversation named last, or the patch's only file.
      return { kind: e.kind, names: [], files: base.files, lines: [first, last] };
    }
    case 'placement': {
      const guard = guardWords(e.guard, message);
      if (symbols.length === 0 && guard.length === 0 && !scope) return 'placement names no call, check or function';
      const anchor = e.anchor ? lastName(bareName(e.anchor)) : undefined;
      const anchorWords = e.anchor_words.map((w) => w.trim().toLowerCase()).filter(Boolean);
      return {
        kind: e.kind,
        ...base,
        ...(scope && { scope }),
        ...(e.position && { position: e.position }),
        ...(anchor && IDENTIFIER.test(anchor) ? { anchor } : anchorWords.length > 0 && { anchorWords }),
        ...(e.loop && { loop: true }),
        ...(guard.length > 0 && { guard }),
      };
    }
  }
}

/** The model's entries as the checker's commitments; entries whose quote or target does not check out are dropped. */
export function commitmentsOf(answer: CommitmentsAnswer, material: Material, input: JudgeInput): { commitments: Commitment[]; dropped: DroppedLabel[] } {
  const commitments: Commitment[] = [];
  const dropped: DroppedLabel[] = [];
  for (const e of answer.commitments) {
    const drop = (reason: string) => dropped.push({ label: `${e.kind} commitment`, reason: `message ${e.message}: ${reason}` });
    const quote = checkQuote(material, e.quote, { sources: ['conversation'], messageId: e.message });
    if (!quote.ok) {
      drop(quote.problem!);
      continue;
    }
    const target = targetOf(e, input.conversation.find((m) => m.id === e.message)?.message ?? '');
    if (typeof target === 'string') {
      drop(target);
      continue;
    }
    let request: Commitment['request'];
    if (e.request !== null && e.request !== undefined) {
      const asked = input.conversation.find((m) => m.id === e.request);
      if (!asked || asked.id >= e.message || asked.from === quote.item!.agent) {
        drop(`request ${e.request} is not an earlier message of the partner`);
        continue;
      }
      const requestQuote = checkQuote(material, e.request_quote ?? '', { sources: ['conversation'], messageId: asked.id });
      if (!requestQuote.ok) {
        drop(`request: ${requestQuote.problem!}`);
        continue;
      }
      request = { messageId: asked.id, agent: asked.from, quote: normalizeWhitespace(e.request_quote!) };
    }
    commitments.push({
      messageId: e.message,
      agent: quote.item!.agent!,
      quote: normalizeWhitespace(e.quote),
      kind: e.stance,
      target,
      ...(request && { request }),
    });
  }
  return { commitments, dropped };
}

function labels(answer: CommitmentsAnswer, material: Material, input: JudgeInput): JudgedLabels {
  const { commitments, dropped } = commitmentsOf(answer, material, input);
  return { labels: brokenCommitments(input, commitments).map((l) => ({ ...l, judge: 'commitments' })), dropped };
}

export const commitmentsJudge: LlmJudge<CommitmentsAnswer> = {
  name: 'commitments',
  title: 'broken commitments read by the judge model',
  promptVersion: 'commitments-1',
  // Its labels come from the detectors' code checks too.
  figuresVersion: `commitments-1+${DETECTORS_VERSION}`,
  schema: answerSchema,
  skipReason: (input) =>
    input.conversation.length === 0 ? 'no messages were exchanged' : input.patches.length === 0 ? 'no patch to check commitments against' : undefined,
  prepare: prepareDetectors,
  prompt,
  labels,
  // Broken commitments, on the cases with patches to check them against: scored per target by
  // calibration/score.ts from what the model read (its labels keep no targets).
  calibration: {
    covers: (c) => c.patches !== undefined,
    score: () => {},
    order: [],
  },
};
