// The initiative fallback (no judge model): sure readings only, `undecided:initiative` otherwise, on
// a hand-built conversation whose readings are known by hand.
import { beforeAll, describe, expect, it } from 'vitest';
import { initiativeLabels } from '../../../../judges/detectors/initiative.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import type { ConversationMessage } from '../../../../judges/types.ts';

function conversation(messages: [string, string][]): ConversationMessage[] {
  return messages.map(([from, message], i) => ({
    id: i + 1,
    from,
    to: [from === 'agent1' ? 'agent2' : 'agent1'],
    message,
    sentAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    deliveredAt: {},
  }));
}

beforeAll(loadLanguage);

describe('initiative without a judge model', () => {
  it('labels plans, questions about named code and reports of new code as initiative, bare acknowledgements as none, and abstains on the rest', () => {
    const labels = initiativeLabels(
      conversation([
        ['agent1', "I'll add `parse_header()` to `src/parser.py`, lines 10-30. Please keep clear of them."],
        ['agent2', 'Sounds good, thanks!'],
        ['agent2', 'Which line does `parse_header()` start at?'],
        ['agent1', 'Not sure yet, let me think about it.'],
        ['agent2', 'I added `max_rows` to `Reader.__init__` in reader.py.'],
        ['agent1', 'Got it 👍'],
        ['agent2', 'You take the parser, I take the CLI.'],
        ['agent1', 'Done with `max_rows` as you said.'],
      ]),
    );
    expect(labels.map((l) => [l.messageId, l.agent, l.label])).toEqual([
      [1, 'agent1', 'initiative'],
      [2, 'agent2', 'no_initiative'],
      [3, 'agent2', 'initiative'],
      [4, 'agent1', 'undecided:initiative'],
      [5, 'agent2', 'initiative'],
      [6, 'agent1', 'no_initiative'],
      // A split without code names, and a report on code only the partner named: left to the judge model.
      [7, 'agent2', 'undecided:initiative'],
      [8, 'agent1', 'undecided:initiative'],
    ]);
    expect(labels.every((l) => l.judge === 'initiative')).toBe(true);
    expect(labels[0]!.evidence).toEqual([
      { kind: 'quote', source: 'conversation', text: "I'll add `parse_header()` to `src/parser.py`, lines 10-30.", messageId: 1, agent: 'agent1' },
    ]);
    expect(labels[3]!.evidence.at(-1)).toMatchObject({ kind: 'fact', text: expect.stringMatching(/^undecided: /) });
  });

  it('does not take an offer for a plan', () => {
    const [label] = initiativeLabels(conversation([['agent1', "If that's useful, I could add `load()` to `io.py`."]]));
    expect(label!.label).not.toBe('initiative');
  });
});
