// One definition per label, taken from the CooperBench paper (appendix F: communication errors;
// table 1 and appendix H: failure symptoms; figure 5c: speech acts; section 5: planning and
// specificity; section 6.3: the capability-gap examples). The detectors, the LLM judges' prompts,
// the calibration gold (calibration/cases.ts) and the report's legend all read them from here, so
// a label means the same thing wherever it is counted. Where a detector covers only part of a
// paper label, it has its own label that says which part (`covers`), never a silent gap.

export interface LabelDefinition {
  id: string;
  /** Short name for tables and legends. */
  name: string;
  /** What the label means: the rule a judge applies and a calibration case is written to. */
  definition: string;
  /** Where in the paper the label comes from. */
  source: string;
}

export interface DetectorDefinition extends LabelDefinition {
  /** The paper label this detector covers part of, and what it leaves to the LLM judges. */
  covers?: { label: string; leavesOut: string };
}

/** Appendix F, grouped as in figure 6 (b–d). The paper lists C3a once as "C4a" by a typo. */
export const COMMUNICATION_ERROR_DEFINITIONS = [
  {
    id: 'C1a',
    group: 'Unresponsiveness',
    name: 'No reply to direct question',
    source: 'appendix F',
    definition:
      'An agent asks its partner a direct question, or asks it for a decision or a confirmation, and the partner sends no message at all after the question reached it.',
  },
  {
    id: 'C1b',
    group: 'Unresponsiveness',
    name: 'Reply but ignores question',
    source: 'appendix F',
    definition:
      'An agent asks its partner a direct question or for a decision; the partner writes again after the question reached it, but nothing it writes addresses the question.',
  },
  {
    id: 'C2',
    group: 'Unresponsiveness',
    name: 'Vague / non-answer',
    source: 'appendix F',
    definition: 'The partner responds to the question, but so vaguely or evasively that the decision it asked for stays open.',
  },
  {
    id: 'C3a',
    group: 'Hallucination',
    name: 'Incorrect claim (uncorrected)',
    source: 'appendix F',
    definition:
      'An agent states something about the code state, the plan or its own completion status that a later message shows to be false, and nobody corrects it.',
  },
  {
    id: 'C3b',
    group: 'Hallucination',
    name: 'Incorrect claim (corrected)',
    source: 'appendix F',
    definition: 'As C3a, but a later message corrects the false claim.',
  },
  {
    id: 'C4a',
    group: 'Repetition',
    name: 'Repeats same information',
    source: 'appendix F',
    definition: 'An agent repeats the same information in several messages, possibly in new words, without adding anything the partner can act on.',
  },
  {
    id: 'C4b',
    group: 'Repetition',
    name: 'Near-duplicate status blocks',
    source: 'appendix F, appendix H (repetition)',
    definition:
      'An agent sends status messages that are nearly identical in wording ("I have successfully added the url type to outlines/types/__init__.py at lines 72–77" then "Successfully added to outlines/types/__init__.py at lines 72–77").',
  },
] as const satisfies readonly (LabelDefinition & { group: string })[];

export type CommunicationError = (typeof COMMUNICATION_ERROR_DEFINITIONS)[number]['id'];
export const COMMUNICATION_ERRORS = COMMUNICATION_ERROR_DEFINITIONS.map((d) => d.id) as unknown as readonly [CommunicationError, ...CommunicationError[]];
/** Evidence the paper requires of a communication-error label (appendix F). */
export const COMMUNICATION_EVIDENCE_RULE =
  'At least two exact quotes that make the issue undeniable. C1a and C1b: the question, plus a quote showing the missing or irrelevant response. C2: the question and the vague answer. C3a and C3b: the claim and the later message that contradicts it (and for C3b, the correction). C4a and C4b: two of the repeating messages.';
/** Appendix F's exclusion. */
export const COMMUNICATION_EXCLUSION =
  "Not an issue by itself: the agents being unable to see each other's branches or changes (that is how the setup works). Bad communication around that topic can still be an issue.";

/** Table 1's coordination failure symptoms (meaning as in the table; the rest is appendix G/H's rubric). */
export const SYMPTOM_DEFINITIONS = [
  {
    id: 'work_overlap',
    name: 'Work overlap',
    source: 'table 1',
    definition: 'Both agents independently implement the same functionality, duplicating work and overwriting details.',
  },
  {
    id: 'divergent_architecture',
    name: 'Divergent architecture',
    source: 'table 1',
    definition: 'Incompatible design decisions lead to semantic loss even under a clean merge.',
  },
  { id: 'repetition', name: 'Repetition', source: 'table 1', definition: 'Verbose status messages add little new information and reduce signal.' },
  {
    id: 'unresponsiveness',
    name: 'Unresponsiveness',
    source: 'table 1',
    definition: 'Direct questions or requests are not answered, breaking the decision loop.',
  },
  {
    id: 'unverifiable_claims',
    name: 'Unverifiable claims',
    source: 'table 1',
    definition: 'An agent asserts a change or interface decision without evidence the partner can check (no pasted signature, no diff, no agreed marker).',
  },
  {
    id: 'broken_commitment',
    name: 'Broken commitment',
    source: 'table 1',
    definition: 'Confident completion claims or promises create false shared context when the promised change is absent from the code.',
  },
  {
    id: 'dependency_access',
    name: 'Dependency access',
    source: 'table 1',
    definition: 'Missing risk communication leaves agents unable to anticipate merged dependency interactions (e.g. circular imports, initialisation order).',
  },
  {
    id: 'placeholder_misuse',
    name: 'Placeholder misuse',
    source: 'table 1',
    definition: 'An explicit integration contract (a marker, an insertion point, a stub) exists but is applied differently than agreed.',
  },
  {
    id: 'parameter_flow',
    name: 'Parameter flow',
    source: 'table 1',
    definition: 'Ambiguity about a changing interface leaves one agent implementing against an outdated contract.',
  },
  {
    id: 'timing_dependency',
    name: 'Timing dependency',
    source: 'table 1',
    definition: 'Agents agree on an order of operations but fail to communicate an enforceable plan that preserves it after the merge.',
  },
  {
    id: 'implementation_failure',
    name: 'Implementation failure',
    source: 'appendix G',
    definition: 'An agent delivers incomplete or buggy code regardless of coordination: the failure has no conversation evidence of a coordination breakdown.',
  },
] as const satisfies readonly LabelDefinition[];

export type Symptom = (typeof SYMPTOM_DEFINITIONS)[number]['id'];
export const SYMPTOMS = SYMPTOM_DEFINITIONS.map((d) => d.id) as unknown as readonly [Symptom, ...Symptom[]];
export const IMPLEMENTATION_FAILURE: Symptom = 'implementation_failure';
/** Appendix G: a coordination symptom needs conversation evidence. */
export const SYMPTOM_EVIDENCE_RULE =
  'A coordination symptom needs explicit evidence from the conversation: at least one quote from the messages that shows the breakdown. If the only evidence is in the code or the test output, the label is implementation_failure. Exception: dependency_access may rest on the conversation being empty, when the agents never exchanged a message.';

/** Figure 5c: what a message does for the collaboration. */
export const SPEECH_ACT_DEFINITIONS = [
  {
    id: 'plan',
    name: 'Plan',
    source: 'figure 5c, section 5',
    definition:
      'Announces or proposes what the sender (or the team) will do on the code: files, functions, line ranges, a split of the work, or boundaries it will keep.',
  },
  {
    id: 'question',
    name: 'Question',
    source: 'figure 5c',
    definition: 'Asks the partner something or asks it for a decision or a confirmation, with or without a question mark ("Tell me which line you start at").',
  },
  { id: 'answer', name: 'Answer', source: 'figure 5c', definition: 'Responds to a question the partner asked.' },
  { id: 'update', name: 'Update', source: 'figure 5c', definition: 'Reports progress or state: what was done, where, what is finished.' },
  { id: 'acknowledgement', name: 'Acknowledgement', source: 'figure 5c', definition: 'Confirms, agrees or thanks without adding new content.' },
] as const satisfies readonly LabelDefinition[];

export type SpeechAct = (typeof SPEECH_ACT_DEFINITIONS)[number]['id'];
export const SPEECH_ACTS = SPEECH_ACT_DEFINITIONS.map((d) => d.id) as unknown as readonly [SpeechAct, ...SpeechAct[]];
export const SPEECH_ACT_RULE =
  'When a message does several things, pick the act that matters most to the partner (an answer that also announces a plan is an answer if it was asked for, a plan otherwise).';

/**
 * Collaborative Gym's initiative (Shao et al. 2025, "Collaborative Gym", arXiv 2412.15701, section on
 * collaboration process; its initiative analysis in collaborative_gym/eval/initiative_analysis.py):
 * a message takes initiative when it directs how the work is done (task initiative) or sets up
 * shared understanding (dialogue initiative).
 */
export const INITIATIVE_DEFINITIONS = [
  {
    id: 'initiative',
    name: 'Takes initiative',
    source: 'Collaborative Gym (task and dialogue initiative)',
    definition:
      'Task initiative: the message directs how the work is done, proposing what the partner or the team should do ("you take the parser, I take the CLI", "let\'s keep `load()` as is"). Dialogue initiative: it sets up shared understanding by giving concrete information (what the sender does, where, what it found) or asking a concrete question ("which line does your function start at?").',
  },
  {
    id: 'no_initiative',
    name: 'No initiative',
    source: 'Collaborative Gym (task and dialogue initiative)',
    definition:
      'A passive message: agreeing, thanking, acknowledging, an open "any suggestions?", repeating what the partner said, or asking it to repeat or clarify what it already said.',
  },
] as const satisfies readonly LabelDefinition[];

export type InitiativeLabel = (typeof INITIATIVE_DEFINITIONS)[number]['id'];

/** What a checkable commitment is (table 1, section 6.3): the detector's label and the commitments judge's prompt both start from it. */
export const CHECKABLE_COMMITMENT =
  'A promise, completion claim or accepted request names a target the code can be checked for (a symbol exists, is exported from a module, is left untouched; a line range is left untouched; a call or guard sits at a stated place)';

/** What the commitment checker can check: the kinds of a promise's target (section 6.3, appendix H). */
export const COMMITMENT_KIND_DEFINITIONS = [
  {
    id: 'exists',
    name: 'Symbol exists',
    source: 'appendix H (broken commitment)',
    definition:
      'A symbol (function, class, method, parameter, attribute, constant) is added, in the named file or function if one is named ("I\'ll add `max_batch_size` to the constructor signature"). The symbol may be named earlier and referred to by a description or a pronoun ("the orientation fix is in", "they\'re in").',
  },
  {
    id: 'exported',
    name: 'Symbol exported',
    source: 'appendix H (divergent architecture)',
    definition:
      'A named symbol is exported from a module: `export` in JavaScript/TypeScript, `pub` in Rust, a capitalised name in Go, a package `__init__.py` import or `__all__` entry in Python.',
  },
  {
    id: 'untouched_symbol',
    name: 'Symbol untouched',
    source: 'section 6.4 (role division)',
    definition:
      'The agent\'s own patch changes no line inside a named function, method or class ("I won\'t touch `Session.close()`"), or inside one referred to (the partner\'s announced function: "I won\'t modify your function"); for a function\'s existing parameters, it removes or renames none of them ("the existing keyword arguments are unchanged").',
  },
  {
    id: 'untouched_lines',
    name: 'Lines untouched',
    source: 'section 6.4 (resource division)',
    definition:
      'The agent\'s own patch removes no line and inserts nothing inside a line range of the original file, named ("I will NOT edit lines 68–84") or referred to (the range the partner announced: "I stayed out of your lines").',
  },
  {
    id: 'placement',
    name: 'Call or guard placed',
    source: 'section 6.3 (commitment), appendix H (timing dependency)',
    definition:
      'A call or a guard sits at the stated place: inside a named function, first in it, or before or after a call named in code or in words ("I will add bypass check … happens FIRST in get()", "the first statement after taking the lock").',
  },
  {
    id: 'accepted_request',
    name: 'Request accepted',
    source: 'table 1 (unresponsiveness, broken commitment)',
    definition: 'The agent accepts a partner\'s request ("Sure, will do"), which commits it to the request\'s own target, checked as that kind.',
  },
] as const satisfies readonly LabelDefinition[];

export type CommitmentKind = (typeof COMMITMENT_KIND_DEFINITIONS)[number]['id'];
export const COMMITMENT_KINDS = COMMITMENT_KIND_DEFINITIONS.map((d) => d.id) as unknown as readonly [CommitmentKind, ...CommitmentKind[]];

/** The deterministic detectors' labels, each a part of a paper label or a paper measure. */
export const DETECTOR_DEFINITIONS = [
  {
    id: 'first_turn_plan',
    name: 'First-turn plan',
    source: 'section 5',
    definition:
      'The conversation\'s first message is a plan (speech act plan): the sender announces or proposes what it will do on the code, whatever the wording ("Unless you object, I\'ll put…", "Taking parser.py L40-60", a "## Plan" list). An offer ("I can add it if you want") or a question is not a plan.',
  },
  {
    id: 'question_no_reply',
    name: 'Question with no reply',
    source: 'appendix F (C1a)',
    definition:
      'A message asks the partner a direct question, or asks it for an answer, a decision or a confirmation (with or without a question mark), and the partner sends no message after the question reached it. A question its sender answers in the same message or takes back later ("Never mind, found it"), a rhetorical question, or a courtesy closing ("Sounds good?") asks nothing.',
    covers: {
      label: 'C1 (unanswered direct question: C1a no reply, C1b ignored)',
      leavesOut: 'a partner who writes again but ignores the question (C1b) or answers vaguely (C2): the communication judge labels those',
    },
  },
  {
    id: 'near_duplicate',
    name: 'Near-duplicate message',
    source: 'appendix F (C4b), appendix H (repetition)',
    definition:
      'A message restates an earlier message of the same sender in nearly the same words, once quoted text, resend prefixes ("Resending in case you missed it:") and filler words are set aside, adding no new file, name, line or fact.',
    covers: {
      label: 'C4 (spammy repetition: C4a same information, C4b near-duplicate blocks)',
      leavesOut: 'the same information repeated in new words (C4a): the communication judge labels that',
    },
  },
  {
    id: 'broken_checkable_commitment',
    name: 'Broken checkable commitment',
    source: 'table 1 (broken commitment), section 6.3',
    definition: `${CHECKABLE_COMMITMENT}, and the code does not keep it: the agent's own patch for what it promised to leave alone, the merged code for what must be there. Reported with the message and the code line.`,
    covers: {
      label: 'broken_commitment (table 1)',
      leavesOut: 'promises with no checkable target ("I\'ll handle the edge cases"): the symptom judge labels those',
    },
  },
] as const satisfies readonly DetectorDefinition[];

export type DetectorLabel = (typeof DETECTOR_DEFINITIONS)[number]['id'];
export const DETECTOR_LABELS = DETECTOR_DEFINITIONS.map((d) => d.id) as unknown as readonly [DetectorLabel, ...DetectorLabel[]];

/** Section 5's specificity measures, counted by the detectors. */
export const MENTION_DEFINITIONS = [
  {
    id: 'line_number_mentions',
    name: 'Line-number mentions',
    source: 'section 5',
    definition: 'Each reference to a line or line range ("line 26", "lines 72–77", "L40-60", "filters.py:120"); a range or list is one mention.',
  },
  {
    id: 'file_path_mentions',
    name: 'File-path mentions',
    source: 'section 5',
    definition:
      'Each file name or path with a source extension ("filters.py", "src/jinja2/filters.py"); URLs, module names, product names ("Node.js") and calls ("response.json()") are not files.',
  },
] as const satisfies readonly LabelDefinition[];

const ALL: readonly LabelDefinition[] = [
  ...COMMUNICATION_ERROR_DEFINITIONS,
  ...SYMPTOM_DEFINITIONS,
  ...SPEECH_ACT_DEFINITIONS,
  ...INITIATIVE_DEFINITIONS,
  ...DETECTOR_DEFINITIONS,
  ...MENTION_DEFINITIONS,
];

/** `work_overlap`, `Work-overlap` and `work overlap` name the same label. */
export function normalizeLabel(label: string): string {
  return label
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

/** The definition of a label id (any family), matched loosely on spelling. */
export function definitionOf(label: string): LabelDefinition | undefined {
  const key = normalizeLabel(label);
  return ALL.find((d) => normalizeLabel(d.id) === key || normalizeLabel(d.name) === key);
}

/** A list of definitions as prompt lines: "- id (name): definition". */
export function definitionLines(definitions: readonly LabelDefinition[]): string {
  return definitions.map((d) => `- ${d.id} (${d.name.toLowerCase()}): ${d.definition}`).join('\n');
}
