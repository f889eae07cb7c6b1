// The judges' vocabularies as the paper reports them (figure 6, table 1, figure 5c), for ordering
// and naming. Labels outside them are still shown, under their own names.

export const JUDGES = { communication: 'communication', symptoms: 'symptoms', speechActs: 'speech_acts', detectors: 'detectors' } as const;

/** Figure 6 (b–d): communication errors (appendix F) grouped into the paper's three failure modes. */
export const COMMUNICATION_ERRORS: { group: string; labels: { id: string; name: string }[] }[] = [
  {
    group: 'Repetition',
    labels: [
      { id: 'C4a', name: 'Repeats same information' },
      { id: 'C4b', name: 'Near-duplicate status blocks' },
    ],
  },
  {
    group: 'Unresponsiveness',
    labels: [
      { id: 'C1a', name: 'No reply to direct question' },
      { id: 'C1b', name: 'Reply but ignores question' },
      { id: 'C2', name: 'Vague / non-answer' },
    ],
  },
  {
    group: 'Hallucination',
    labels: [
      { id: 'C3a', name: 'Incorrect claim (uncorrected)' },
      { id: 'C3b', name: 'Incorrect claim (corrected)' },
    ],
  },
];

/** Table 1's coordination failure symptoms, in the paper's order. */
export const SYMPTOMS: { name: string; meaning: string }[] = [
  { name: 'Work overlap', meaning: 'Both agents implement the same functionality, duplicating work and overwriting details.' },
  { name: 'Divergent architecture', meaning: 'Incompatible design decisions lead to semantic loss even under a clean merge.' },
  { name: 'Repetition', meaning: 'Verbose status messages add little new information.' },
  { name: 'Unresponsiveness', meaning: 'Direct questions or requests are not answered.' },
  { name: 'Unverifiable claims', meaning: 'A change or interface decision is asserted without evidence the partner can check.' },
  { name: 'Broken commitment', meaning: 'A confident completion claim, but the promised change is absent.' },
  { name: 'Dependency access', meaning: 'Missing risk communication about merged dependency interactions.' },
  { name: 'Placeholder misuse', meaning: 'An agreed integration contract is applied differently.' },
  { name: 'Parameter flow', meaning: 'One agent implements against an outdated interface.' },
  { name: 'Timing dependency', meaning: 'An agreed order is not enforced after the merge.' },
];

/** The symptoms judge's label when the only evidence is in code or test output, not the conversation. */
export const IMPLEMENTATION_FAILURE = 'Implementation failure';

/** Figure 5 (c): speech acts of messages. */
export const SPEECH_ACTS = ['plan', 'question', 'answer', 'update', 'acknowledgement'];

/** `work_overlap`, `Work-overlap` and `work overlap` name the same label. */
export function normalizeLabel(label: string): string {
  return label.toLowerCase().replace(/[\s_-]+/g, ' ').trim();
}
