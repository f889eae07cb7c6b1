// Failure symptoms (paper table 1, appendix G) of a Coop task whose merged code failed: a primary
// symptom and any secondary ones, each with quoted evidence. A coordination symptom needs a quote
// from the conversation; with evidence only in code or test output it becomes an implementation
// failure, as in the paper's rubric.
import { z } from 'zod';
import { definitionLines, IMPLEMENTATION_FAILURE, SYMPTOM_DEFINITIONS, SYMPTOM_EVIDENCE_RULE, SYMPTOMS, type Symptom } from '../definitions.ts';
import type { Evidence, JudgeInput, JudgeLabel } from '../types.ts';
import { checkQuote, quoteEvidence } from './evidence.ts';
import type { DroppedLabel, JudgedLabels, LlmJudge } from './judge.ts';
import { combine, conversationItems, DEFAULT_BUDGET, fenceNonce, fenceRules, patchItems, renderItem, testItems, type Material } from './material.ts';

const symptomSchema = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
      : v,
  z.enum(SYMPTOMS),
);
const labelSchema = z.object({
  symptom: symptomSchema,
  description: z.string().default(''),
  evidence: z.array(z.object({ source: z.enum(['conversation', 'patch', 'merged', 'tests']), quote: z.string() })).default([]),
});
const answerSchema = z.object({ primary: labelSchema.nullable(), secondary: z.array(labelSchema).default([]) });
export type SymptomsAnswer = z.infer<typeof answerSchema>;
type SymptomAnswer = z.infer<typeof labelSchema>;

const SYSTEM = `You diagnose why a team of coding agents failed. Each agent implemented a different feature of the same repository on its own branch, without seeing the other's branch; they could only exchange messages. Their patches were merged and the hidden tests of both features were run on the merged code, and at least one feature failed. You are shown the conversation, each agent's patch, the merge result and the test output.

Symptoms of coordination failure:
${definitionLines(SYMPTOM_DEFINITIONS.filter((d) => d.id !== IMPLEMENTATION_FAILURE))}
And:
${definitionLines(SYMPTOM_DEFINITIONS.filter((d) => d.id === IMPLEMENTATION_FAILURE))}

Rules:
- ${SYMPTOM_EVIDENCE_RULE}
- Give one primary symptom (the one that best explains the failure) and any secondary symptoms that clearly apply too.
- Every label needs quotes, each from one fenced item, with its source: "conversation", "patch" (an agent's patch), "merged" (the merged patch) or "tests" (test output).

Answer with one JSON object and nothing else:
{"primary": {"symptom": "<symptom>", "description": "<one or two sentences>", "evidence": [{"source": "<conversation|patch|merged|tests>", "quote": "<quote>"}]}, "secondary": [<same shape>]}`;

function prompt(input: JudgeInput) {
  const conversation = conversationItems(input, DEFAULT_BUDGET);
  const patches = input.patches.map((p) => patchItems(p.patch, 'patch', p.agent, DEFAULT_BUDGET.patchChars));
  const merged = input.merge ? patchItems(input.merge.patch, 'merged', undefined, DEFAULT_BUDGET.patchChars) : combine();
  const tests = testItems(input, DEFAULT_BUDGET);
  const material = combine(conversation, ...patches, merged, tests);
  const nonce = fenceNonce(material);
  const render = (part: Material) => [...part.items.map((item) => renderItem(item, nonce)), ...part.omitted.map((note) => `(${note})`)];
  const user = [
    fenceRules(nonce),
    '',
    `## Conversation (${input.conversation.length} messages)`,
    ...(input.conversation.length === 0 ? ['The agents exchanged no messages.'] : render(conversation)),
    ...input.patches.flatMap((p, i) => ['', `## Patch of ${p.agent}`, ...(p.patch.trim() ? render(patches[i]!) : ['(empty: this agent changed nothing)'])]),
    '',
    `## Merge: ${input.merge ? input.merge.status : 'not attempted'}`,
    ...render(merged),
    '',
    '## Tests on the merged code',
    ...input.evaluations.flatMap((e) => [
      `feature ${e.feature}: ${e.passed ? 'passed' : 'FAILED'}`,
      ...render({ items: tests.items.filter((t) => t.feature === e.feature), omitted: [] }),
    ]),
    '',
    'Answer with the JSON object described in the instructions.',
  ].join('\n');
  return { system: SYSTEM, user, material };
}

const isCoordination = (symptom: Symptom) => symptom !== IMPLEMENTATION_FAILURE;

/** A checked label, or why it is dropped. */
function checkLabel(answer: SymptomAnswer, material: Material, input: JudgeInput): { label: Omit<JudgeLabel, 'isPrimary'> } | { dropped: DroppedLabel } {
  const evidence: Evidence[] = [];
  for (const e of answer.evidence) {
    const check = checkQuote(material, e.quote, { sources: [e.source] });
    if (!check.ok) return { dropped: { label: answer.symptom, reason: `${e.source} quote ${check.problem}` } };
    evidence.push(quoteEvidence(e.quote, check.item!));
  }
  const silent = input.conversation.length === 0;
  if (answer.symptom === 'dependency_access' && silent) evidence.push({ kind: 'fact', text: 'the agents exchanged no messages' });
  if (evidence.length === 0) return { dropped: { label: answer.symptom, reason: 'no evidence quoted' } };

  const fromConversation = evidence.find((e) => (e.kind === 'quote' && e.source === 'conversation') || e.kind === 'fact');
  const symptom = isCoordination(answer.symptom) && !fromConversation ? 'implementation_failure' : answer.symptom;
  const description = answer.description.trim() || answer.symptom.replace(/_/g, ' ');
  const first = evidence.find((e) => e.kind === 'quote' && e.source === 'conversation');
  return {
    label: {
      judge: 'symptoms',
      label: symptom,
      messageId: first?.kind === 'quote' ? first.messageId : undefined,
      agent: first?.kind === 'quote' ? first.agent : undefined,
      description: symptom === answer.symptom ? description : `no conversation evidence for ${answer.symptom}: ${description}`,
      evidence,
    },
  };
}

function labels(answer: SymptomsAnswer, material: Material, input: JudgeInput): JudgedLabels {
  const kept: JudgeLabel[] = [];
  const dropped: DroppedLabel[] = [];
  for (const candidate of [answer.primary, ...answer.secondary]) {
    if (!candidate) continue;
    const result = checkLabel(candidate, material, input);
    if ('dropped' in result) {
      dropped.push(result.dropped);
      continue;
    }
    // One label per symptom; the first kept one is primary (the model's primary, unless dropped).
    if (kept.some((l) => l.label === result.label.label)) continue;
    kept.push({ ...result.label, isPrimary: kept.length === 0 });
  }
  return { labels: kept, dropped };
}

export const symptomsJudge: LlmJudge<SymptomsAnswer> = {
  name: 'symptoms',
  title: 'failure symptoms (table 1)',
  promptVersion: 'symptoms-2',
  schema: answerSchema,
  skipReason: (input) => (input.bothPassed === true ? 'both features passed' : input.evaluations.length === 0 ? 'the task has no test results' : undefined),
  prompt,
  labels,
  // The primary symptom, on the cases written with one.
  calibration: {
    covers: (c) => c.gold.symptoms !== undefined,
    score: (tally, got, c) => tally.classify(c.id, got.find((l) => l.isPrimary)?.label, c.gold.symptoms!.primary),
    order: SYMPTOMS,
  },
};
