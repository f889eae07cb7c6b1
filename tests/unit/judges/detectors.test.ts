import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../../harness/store/records.ts';
import { caseInput, loadCalibrationSet } from '../../../judges/calibration/cases.ts';
import { precision, recall, scoreDetectors } from '../../../judges/calibration/score.ts';
import { extractCommitments } from '../../../judges/detectors/commitment-extract.ts';
import { brokenCommitments } from '../../../judges/detectors/commitments.ts';
import { nearDuplicates } from '../../../judges/detectors/duplicates.ts';
import { firstTurnPlan } from '../../../judges/detectors/first-turn-plan.ts';
import { runDetectors } from '../../../judges/detectors/index.ts';
import { filePathMentions, lineNumberMentions } from '../../../judges/detectors/mentions.ts';
import { questionsIn, unansweredQuestions } from '../../../judges/detectors/questions.ts';
import type { JudgeInput } from '../../../judges/types.ts';

function conversation(...messages: [from: string, text: string, delivered?: string | null][]): ConversationMessage[] {
  return messages.map(([from, message, delivered], i) => {
    const sentAt = new Date(Date.UTC(2025, 0, 6, 9, i)).toISOString();
    const to = from === 'agent1' ? ['agent2'] : ['agent1'];
    return { id: i + 1, from, to, message, sentAt, deliveredAt: { [to[0]!]: delivered === undefined ? sentAt : delivered } };
  });
}

describe('deterministic detectors on the calibration set', () => {
  const cases = loadCalibrationSet();

  it('has at least 30 conversations, clean ones included', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    const clean = cases.filter((c) => c.gold.communication === null && !c.gold.symptoms && c.gold.unanswered_question.length === 0 && c.gold.near_duplicate.length === 0 && c.gold.broken_commitment.length === 0);
    expect(clean.length).toBeGreaterThanOrEqual(10);
  });

  it('scores as recorded: no false positive on any label', () => {
    const scores = scoreDetectors(cases);
    const row = (label: string) => scores.labels.find((r) => r.label === label)!;
    expect(row('unanswered_question')).toMatchObject({ tp: 3, fp: 0, fn: 1 });
    expect(row('near_duplicate')).toMatchObject({ tp: 3, fp: 0, fn: 1 });
    expect(row('first_turn_plan')).toMatchObject({ tp: 25, fp: 0, fn: 1 });
    expect(row('broken_commitment')).toMatchObject({ tp: 7, fp: 0, fn: 0 });
    for (const r of scores.labels) expect(precision(r)).toBe(1);
    expect(recall(row('broken_commitment'))).toBe(1);
    expect(scores.counts).toEqual([
      { label: 'line_number_mentions', exact: cases.length, cases: cases.length, meanAbsoluteError: 0 },
      { label: 'file_path_mentions', exact: cases.length, cases: cases.length, meanAbsoluteError: 0 },
    ]);
  });

  it('gives clean conversations no error label', () => {
    for (const c of cases.filter((x) => x.id.startsWith('clean-'))) {
      const errors = runDetectors(caseInput(c)).labels.filter((l) => l.label !== 'first_turn_plan');
      expect(errors, c.id).toEqual([]);
    }
  });
});

describe('unanswered questions', () => {
  it('finds questions in prose only, not in quotes, code or courtesy closings', () => {
    expect(questionsIn('Which approach would you prefer? I want to keep both.')).toEqual(['Which approach would you prefer?']);
    expect(questionsIn('> Did you change foo?\nYes.\n```\nx = a ? b : c  # why?\n```')).toEqual([]);
    expect(questionsIn('Done. Anything else you need from me?')).toEqual([]);
    expect(questionsIn('Please confirm you will not edit lines 10-20.')).toEqual(['Please confirm you will not edit lines 10-20.']);
  });

  it('only counts a reply sent after the question reached the partner', () => {
    const [q, crossing] = conversation(['agent1', 'Hash the whole tuple or only the first argument?'], ['agent2', 'I am adding ttl.']);
    q!.deliveredAt = { agent2: new Date(Date.UTC(2025, 0, 6, 9, 5)).toISOString() };
    const labels = unansweredQuestions([q!, crossing!]);
    expect(labels).toHaveLength(1);
    expect(labels[0]).toMatchObject({ label: 'unanswered_question', messageId: 1, agent: 'agent1' });
    expect(labels[0]!.evidence[0]).toMatchObject({ kind: 'quote', text: 'Hash the whole tuple or only the first argument?', messageId: 1 });
  });

  it('says when the question was never delivered', () => {
    const labels = unansweredQuestions(conversation(['agent1', 'Validate in __init__ or lazily?', null]));
    expect(labels[0]!.evidence[1]).toEqual({ kind: 'fact', text: 'the message was never delivered to agent2, and agent2 sent nothing later' });
  });
});

describe('near-duplicate messages', () => {
  it('flags the appendix H restatement and quotes both messages', () => {
    const labels = nearDuplicates(conversation(
      ['agent1', 'I have successfully added the url type to outlines/types/__init__.py at lines 72–77:'],
      ['agent2', 'Thanks.'],
      ['agent1', 'Successfully added to outlines/types/__init__.py at lines 72–77'],
    ));
    expect(labels.map((l) => l.messageId)).toEqual([3]);
    expect(labels[0]!.evidence.map((e) => e.kind === 'quote' && e.messageId)).toEqual([1, 3]);
  });

  it('does not flag a same-template status that adds new facts', () => {
    expect(nearDuplicates(conversation(
      ['agent1', 'Status: step 1 done, added the `env` parameter to `edit()` signature at line 641.'],
      ['agent1', 'Status: step 2 done, the `env` dict is now merged into a copy of `os.environ` at lines 672-678.'],
    ))).toEqual([]);
  });
});

describe('first-turn plan', () => {
  it('recognises a first-person plan and rejects refusals, offers and questions', () => {
    expect(firstTurnPlan(conversation(['agent1', 'Hi! I will NOT edit lines 68–84. My plan is to insert get_image_mimetype() after line 84.']))[0]!.evidence[0])
      .toMatchObject({ text: 'My plan is to insert get_image_mimetype() after line 84.' });
    expect(firstTurnPlan(conversation(['agent1', 'If you want, I can add the helper.']))).toEqual([]);
    expect(firstTurnPlan(conversation(['agent1', 'Will you add the helper to utils.py?']))).toEqual([]);
    expect(firstTurnPlan([])).toEqual([]);
  });
});

describe('line-number and file-path mentions', () => {
  it('counts each reference once, ranges and lists included', () => {
    const text = 'I will modify src/jinja2/filters.py lines 1161–1230 and L20-L25, see filters.py:120, https://x.org/a/b.py, Node.js, lines 10, 12 and 14.';
    expect(lineNumberMentions(text)).toEqual(['lines 1161–1230', 'L20-L25', ':120', 'lines 10, 12 and 14']);
    expect(filePathMentions(text)).toEqual(['src/jinja2/filters.py', 'filters.py']);
  });
});

describe('commitments', () => {
  const diff = (path: string, added: string[]) =>
    [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, `@@ -10,1 +10,${added.length + 1} @@`, ' context', ...added.map((l) => `+${l}`), ''].join('\n');

  it('extracts promises and completion claims with the code they name', () => {
    const found = extractCommitments(conversation(
      ['agent2', 'I’ll add BOTH parameters (fallback_processor and max_batch_size) to the constructor signature, BOTH docstrings.'],
      ['agent2', '✓Line 26: Added BOTH parameters (fallback_processor and max_batch_size) to constructor signature.'],
      ['agent1', 'I will add bypass check at lines 100–104, happens FIRST in get().'],
      ['agent1', 'If you want, I can add `lru_wrap()` to utils.py.'],
      ['agent1', "I'll modify src/click/termui.py lines 700-720."],
    ));
    expect(found.map((c) => [c.messageId, c.kind, c.identifiers, c.files])).toEqual([
      [1, 'promise', ['fallback_processor', 'max_batch_size'], []],
      [2, 'claim', ['fallback_processor', 'max_batch_size'], []],
      [5, 'promise', [], ['src/click/termui.py']],
    ]);
  });

  it('reports promised code missing from the merged code, with the quote and what is missing', () => {
    const input: JudgeInput = {
      conversation: conversation(['agent2', "I'll add `max_batch_size` and `fallback_processor` to `LogitsProcessor.__init__`."]),
      patches: [{ agent: 'agent2', patch: diff('base.py', ['    def __init__(self, fallback_processor=None):']) }, { agent: 'agent1', patch: diff('base.py', ['        n = self.max_batch_size']) }],
      merge: { status: 'clean', patch: diff('base.py', ['    def __init__(self, fallback_processor=None):', '        n = self.max_batch_size']) },
      evaluations: [],
      bothPassed: false,
    };
    const [label] = brokenCommitments(input);
    expect(label).toMatchObject({ label: 'broken_commitment', messageId: 1, agent: 'agent2' });
    expect(label!.evidence).toEqual([
      { kind: 'quote', source: 'conversation', text: "I'll add `max_batch_size` and `fallback_processor` to `LogitsProcessor.__init__`.", messageId: 1, agent: 'agent2' },
      { kind: 'absence', source: 'merged', text: 'max_batch_size', note: 'no line added in the merged code contains `max_batch_size`' },
      { kind: 'fact', text: "agent2's patch never added `max_batch_size`" },
    ]);
  });

  it('says when the promised code was in the patch but lost in the merge', () => {
    const input: JudgeInput = {
      conversation: conversation(['agent1', "I've added the `ImageOps.exif_transpose()` call in `load_prepared()`."]),
      patches: [{ agent: 'agent1', patch: diff('ImageFile.py', ['        im = ImageOps.exif_transpose(im)']) }],
      merge: { status: 'llm', patch: diff('ImageFile.py', ['        im = im.crop(box)']) },
      evaluations: [],
      bothPassed: false,
    };
    expect(brokenCommitments(input)[0]!.evidence.slice(1)).toEqual([
      { kind: 'absence', source: 'merged', text: 'ImageOps.exif_transpose', note: 'no line added in the merged code contains `ImageOps.exif_transpose`' },
      { kind: 'quote', source: 'patch', agent: 'agent1', file: 'ImageFile.py', text: 'im = ImageOps.exif_transpose(im)' },
      { kind: 'fact', text: "agent1's patch added it (ImageFile.py:11); it was lost in the merge" },
    ]);
  });

  it('leaves alone promises taken back later and code in test files the merge dropped', () => {
    const input: JudgeInput = {
      conversation: conversation(
        ['agent1', "I'll add `normalize_key()` to keys.py."],
        ['agent1', "I'll add `test_lookup_lowercases` to tests/test_keys.py."],
        ['agent1', "Change of plan: I won't add `normalize_key()` after all."],
      ),
      patches: [{ agent: 'agent1', patch: diff('tests/test_keys.py', ['def test_lookup_lowercases():']) }],
      merge: { status: 'clean', patch: diff('cache.py', ['    x = 1']) },
      evaluations: [],
      bothPassed: true,
    };
    expect(extractCommitments(input.conversation)).toHaveLength(2);
    expect(brokenCommitments(input)).toEqual([]);
  });
});
