import { beforeAll, describe, expect, it } from 'vitest';
import { firstTurnPlan, planSentence } from '../../../../judges/detectors/first-turn-plan.ts';
import { conversation } from './commitment-fixtures.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';

beforeAll(async () => {
  await loadLanguage();
});

const labelsOf = (labels: { label: string }[]) => labels.map((l) => l.label);

describe('first-turn plan', () => {
  it('recognises plans whatever their wording', () => {
    for (const plan of [
      "Unless you object, I'll put the cache in parser.py.",
      "I'm planning to add the tokenizer to parser.py after line 40.",
      'Taking parser.py L40-60.',
      'Proposed split: I take lines 1-60, you take 61-120.',
      '## Plan\n- parser.py: tokenizer\n- lexer.py: keywords',
      "parser.py: I'm adding the tokenizer after line 40.",
      'Hi! I will NOT edit lines 68–84. My plan is to insert get_image_mimetype() after line 84.',
      // Options of who does what propose a split too (paper 6.4, negotiation).
      'Two options:\n(1) I add IsHash in _strings.py; you add IsRegex.\n(2) You add IsHash; I add IsRegex.\nWhich do you prefer?',
      '`max_length` for `slugify()` is mine (slugkit/slug.py).',
      'Retries with exponential backoff go into `request()` in src/client.ts.',
      // A participle before its noun describes it ("new exported func"): the list assigns code, it reports nothing.
      '- size.go: new exported func `ParseSize(s string) (int64, error)` after `FormatSize`\n- decimal units only\n- `FormatSize` untouched',
      '- cache.py: a cached `lookup()` table\n- api.py: the exported `get()` wrapper',
      // The sender named as where the change comes from, with or without a verb.
      'config/config.go: `Config` gets a `Retries int` field from me.',
      '`Queue.drain()` (src/queue.ts) is getting a `limit` argument from me.',
      'formatBytes from me — new file src/bytes.ts, exported through the package entry point.',
      // A change in the passive, still to come, with no agent named: the sender's.
      'Padding: `pad_to_block()` will be called in `finish()` right before the bytes are encoded.',
      '`await task()` gets wrapped in try/finally so the spinner stops even when the task throws.',
      "Capping the queue. There'll be a `MAX_TOASTS` constant exported from src/toast.js.",
      "I'm in upload/handler.go adding content-type sniffing after store().",
      // Code that gets new code; where the sender is; the work in one sentence and the code in another.
      '- `Station.__init__` gets a `smoothing` kwarg (window size, default 1)',
      "1px padding between sprites. I'm in `place()`, lines 21 to 34 of src/atlas.rs.",
      'Retry support: first step is a `MaxRetries int` field on Config (mirror/config.go).',
      "About `Server.handle()` in src/server.ts. I'll make the auth check its first statement.",
    ])
      expect(planSentence(plan), plan).toBeDefined();
    expect(
      firstTurnPlan(conversation(['agent1', 'Hi! I will NOT edit lines 68–84. My plan is to insert get_image_mimetype() after line 84.']))[0]!.evidence[0],
    ).toMatchObject({ text: 'I will NOT edit lines 68–84.' });
  });

  it('rejects offers, questions and intentions that name no code', () => {
    expect(firstTurnPlan(conversation(['agent1', 'If you want, I can add the helper to utils.py.']))).toEqual([]);
    expect(firstTurnPlan(conversation(['agent1', 'Will you add the helper to utils.py?']))).toEqual([]);
    expect(firstTurnPlan(conversation(['agent1', 'Hello! Starting on the timeout feature now.']))).toEqual([]);
    // What came from the sender before is no plan.
    expect(firstTurnPlan(conversation(['agent1', '`Config` got a `Retries` field from me yesterday.']))).toEqual([]);
    // A first-person clause after a noun describes the noun; a change said to be the partner's is not the sender's.
    expect(
      firstTurnPlan(conversation(['agent1', "Please keep `format_total`'s signature. The PDF exporter I'm writing calls it as `format_total(amount)`."])),
    ).toEqual([]);
    expect(firstTurnPlan(conversation(['agent1', '`pad_to_block()` will be called in `finish()` by you.']))).toEqual([]);
    expect(firstTurnPlan(conversation(['agent1', 'Your `await task()` will be wrapped in try/finally.']))).toEqual([]);
    // Code in one sentence and the sender's wish in another, in a message that asks: the answer decides.
    expect(firstTurnPlan(conversation(['agent1', "Which part of store/cart.py are you going to edit? I'd like to avoid the same lines."]))).toEqual([]);
    expect(firstTurnPlan(conversation(['agent1', '`Walker` got a `maxDepth` option yesterday.']))).toEqual([]);
    // A list of work done is a report, not a plan.
    expect(firstTurnPlan(conversation(['agent1', '- size.go: exported `ParseSize`\n- api.go: added `FormatSizeIEC`']))).toEqual([]);
    expect(firstTurnPlan([])).toEqual([]);
  });
});

describe('plans the detector is not sure of', () => {
  it('leaves a first message undecided when its plan is an offer or is put off, and says why', () => {
    expect(firstTurnPlan(conversation(['agent1', 'I could add `retry()` to client.py, if that would be useful.']))).toEqual([]);
    const offered = firstTurnPlan(conversation(['agent1', '`retry()` goes into client.py if you want it. Just say the word.']));
    expect(labelsOf(offered)).toEqual(['undecided:first_turn_plan']);
    expect(offered[0]!.evidence.at(-1)).toMatchObject({ kind: 'fact', text: expect.stringMatching(/^undecided: /) });
    expect(labelsOf(firstTurnPlan(conversation(['agent1', 'Scope for feature 2: `max_retries` on `Client` in client.py, plus its tests.'])))).toEqual([
      'undecided:first_turn_plan',
    ]);
    expect(labelsOf(firstTurnPlan(conversation(['agent1', "I'll add `retry()` to client.py, lines 40-60."])))).toEqual(['first_turn_plan']);
  });
});
