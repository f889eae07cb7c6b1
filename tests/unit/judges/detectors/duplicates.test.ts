import { beforeAll, describe, expect, it } from 'vitest';
import { nearDuplicates } from '../../../../judges/detectors/duplicates.ts';
import { conversation } from './commitment-fixtures.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';

beforeAll(async () => {
  await loadLanguage();
});

const labelsOf = (labels: { label: string }[]) => labels.map((l) => l.label);

describe('near-duplicate messages', () => {
  it('flags the appendix H restatement and quotes both messages', () => {
    const labels = nearDuplicates(
      conversation(
        ['agent1', 'I have successfully added the url type to outlines/types/__init__.py at lines 72–77:'],
        ['agent2', 'Thanks.'],
        ['agent1', 'Successfully added to outlines/types/__init__.py at lines 72–77'],
      ),
    );
    expect(labels.map((l) => l.messageId)).toEqual([3]);
    expect(labels[0]!.evidence.map((e) => e.kind === 'quote' && e.messageId)).toEqual([1, 3]);
  });

  it('does not flag a same-template status that adds new facts', () => {
    expect(
      nearDuplicates(
        conversation(
          ['agent1', 'Status: step 1 done, added the `env` parameter to `edit()` signature at line 641.'],
          ['agent1', 'Status: step 2 done, the `env` dict is now merged into a copy of `os.environ` at lines 672-678.'],
        ),
      ),
    ).toEqual([]);
  });
});

describe('near-duplicates behind prefixes and filler', () => {
  it('sees a word-for-word repeat behind a resend prefix or filler words', () => {
    const original = 'I added `parse_header()` to src/http/parser.py at lines 40-58 and exported it from src/http/__init__.py.';
    for (const repeat of [
      `Resending in case you missed it: ${original}`,
      'Just to be really clear, I basically added `parse_header()` to src/http/parser.py at lines 40-58 and exported it from src/http/__init__.py.',
      `> earlier note\n${original}`,
    ]) {
      expect(
        nearDuplicates(conversation(['agent1', original], ['agent2', 'ok'], ['agent1', repeat])).map((l) => l.messageId),
        repeat,
      ).toEqual([3]);
    }
  });

  it('does not call the completion of a plan a repeat of it', () => {
    expect(
      nearDuplicates(
        conversation(
          ['agent1', "I'll add `parse_header()` to src/http/parser.py at lines 40-58."],
          ['agent1', 'Added `parse_header()` to src/http/parser.py at lines 40-58.'],
        ),
      ),
    ).toEqual([]);
  });

  it('reads "in" as done only at the end of a clause, so a plan with "in finish()" is no report already', () => {
    const plan = "I'm adding an early return in finish() for an empty buffer, at its very top.";
    expect(nearDuplicates(conversation(['agent1', plan], ['agent1', 'early return for empty buffer is in']))).toEqual([]);
    expect(nearDuplicates(conversation(['agent1', plan], ['agent2', 'ok'], ['agent1', plan]))).toHaveLength(1);
  });
});

describe('near-duplicates the detector is not sure of', () => {
  it('is sure of a word-for-word repost behind a new prefix, and leaves a template naming new code undecided', () => {
    const status = 'Status: added the `env` parameter to `edit()` in editor.py and wired it through the CLI.';
    expect(labelsOf(nearDuplicates(conversation(['agent1', status], ['agent1', `Posting again, the channel was noisy: ${status}`])))).toEqual([
      'near_duplicate',
    ]);
    expect(
      labelsOf(
        nearDuplicates(
          conversation(
            ['agent1', 'Status: added the `env` parameter to `edit()` in editor.py and wired it through the CLI.'],
            ['agent1', 'Status: added the `env` parameter to `view()` in editor.py and wired it through the CLI.'],
          ),
        ),
      ),
    ).toEqual(['undecided:near_duplicate']);
  });
});
