// The judges' vocabularies as the report names and orders them (figure 6, table 1, figure 5c),
// read from the one definitions module the judges themselves use (judges/definitions.ts), so the
// legend says what the labels mean to the judges. Labels outside them are still shown, under
// their own names.
import {
  COMMUNICATION_ERROR_DEFINITIONS,
  DETECTOR_DEFINITIONS,
  IMPLEMENTATION_FAILURE as IMPLEMENTATION_FAILURE_ID,
  MENTION_DEFINITIONS,
  SPEECH_ACTS as SPEECH_ACT_IDS,
  SYMPTOM_DEFINITIONS,
  normalizeLabel,
  type DetectorDefinition,
} from '../../judges/definitions.ts';

export { normalizeLabel };

export const JUDGES = {
  communication: 'communication',
  symptoms: 'symptoms',
  speechActs: 'speech_acts',
  commitments: 'commitments',
  detectors: 'detectors',
} as const;

/** Figure 6 (b–d): communication errors (appendix F) grouped into the paper's three failure modes. */
export const COMMUNICATION_ERRORS: { group: string; labels: { id: string; name: string; definition: string }[] }[] = [
  'Repetition',
  'Unresponsiveness',
  'Hallucination',
].map((group) => ({
  group,
  labels: COMMUNICATION_ERROR_DEFINITIONS.filter((d) => d.group === group).map((d) => ({ id: d.id, name: d.name, definition: d.definition })),
}));

const implementation = SYMPTOM_DEFINITIONS.find((d) => d.id === IMPLEMENTATION_FAILURE_ID)!;

/** Table 1's coordination failure symptoms, in the paper's order. */
export const SYMPTOMS: { name: string; meaning: string }[] = SYMPTOM_DEFINITIONS.filter((d) => d !== implementation).map((d) => ({
  name: d.name,
  meaning: d.definition,
}));

/** The symptoms judge's label when the only evidence is in code or test output, not the conversation. */
export const IMPLEMENTATION_FAILURE = implementation.name;
export const IMPLEMENTATION_FAILURE_MEANING = implementation.definition;

/** Figure 5 (c): speech acts of messages. */
export const SPEECH_ACTS: string[] = [...SPEECH_ACT_IDS];

/** The deterministic detectors' labels and counts, with what each covers of the paper's labels. */
export const DETECTORS: readonly DetectorDefinition[] = [...DETECTOR_DEFINITIONS, ...MENTION_DEFINITIONS];
