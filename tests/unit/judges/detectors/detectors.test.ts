import { beforeAll, describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../../../harness/store/records.ts';
import { caseFiles, caseInput, casesOfSplit, loadCalibrationSet } from '../../../../judges/calibration/cases.ts';
import { precision, recall, scoreDetectors, type DetectorScores } from '../../../../judges/calibration/score.ts';
import { readStoredScores } from '../../../../judges/calibration/stored-scores.ts';
import { nearDuplicates } from '../../../../judges/detectors/duplicates.ts';
import { firstTurnPlan, planSentence } from '../../../../judges/detectors/first-turn-plan.ts';
import { runDetectors } from '../../../../judges/detectors/index.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { filePathMentions, lineNumberMentions } from '../../../../judges/detectors/mentions.ts';
import { questionsIn, questionsWithoutReply } from '../../../../judges/detectors/questions.ts';

beforeAll(async () => {
  await loadLanguage();
});

function conversation(...messages: [from: string, text: string, delivered?: string | null][]): ConversationMessage[] {
  return messages.map(([from, message, delivered], i) => {
    const sentAt = new Date(Date.UTC(2025, 0, 6, 9, i)).toISOString();
    const to = from === 'agent1' ? ['agent2'] : ['agent1'];
    return { id: i + 1, from, to, message, sentAt, deliveredAt: { [to[0]!]: delivered === undefined ? sentAt : delivered } };
  });
}

describe('deterministic detectors on the calibration set', () => {
  const cases = loadCalibrationSet();
  const train = casesOfSplit(cases, 'train');

  it('has train and test conversations, clean ones included', () => {
    expect(train.length).toBeGreaterThanOrEqual(30);
    const clean = train.filter(
      (c) =>
        c.gold.communication === null &&
        !c.gold.symptoms &&
        c.gold.unanswered_question.length === 0 &&
        c.gold.near_duplicate.length === 0 &&
        c.gold.broken_commitment.length === 0,
    );
    expect(clean.length).toBeGreaterThanOrEqual(10);
  });

  // One test per case file: each scores its own cases (a file's failure names the file), and the
  // split's figures below reuse those results (the detectors' results are kept per case).
  it.each(caseFiles(train).map((f) => f.file))('scores every case of %s', async (file) => {
    const mine = train.filter((c) => c.file === file);
    const scored = await scoreDetectors(mine);
    expect(scored.cases).toBe(mine.length);
    expect(scored.counts.map((c) => c.cases)).toEqual(scored.counts.map(() => mine.length));
  });

  let scored: Promise<DetectorScores> | undefined;
  const trainScores = () => (scored ??= scoreDetectors(train));

  it('reaches precision 0.9 on the training split, recall 0.8 for plans, questions and duplicates, mentions counted exactly', async () => {
    const scores = await trainScores();
    // Broken commitments: the detectors abstain where their reading is unsure, and are scored per target, so their recall is lower (judges/README.md).
    for (const r of scores.labels) {
      expect(precision(r), r.label).toBeGreaterThanOrEqual(0.9);
      expect(recall(r), r.label).toBeGreaterThanOrEqual(r.label === 'broken_checkable_commitment' ? 0.65 : 0.8);
    }
    expect(scores.undecided.map((u) => u.label)).toEqual(['first_turn_plan', 'question_no_reply', 'near_duplicate', 'broken_checkable_commitment']);
    for (const c of scores.counts) expect(c.exact / c.cases, c.label).toBeGreaterThanOrEqual(0.95);
  });

  it('gives the paraphrases of the training split the labels of their original', async () => {
    const scores = await trainScores();
    // Not all yet: of independent-paraphrases-2.json (written blind to the detectors), 12 of the 87
    // are labelled otherwise than their original (judges/README.md). A paraphrase that agrees must keep agreeing: raise this as more do.
    expect(scores.paraphrases.of).toBeGreaterThanOrEqual(87);
    expect(scores.paraphrases.same, scores.paraphrases.differing.join('; ')).toBeGreaterThanOrEqual(75);
  });

  it('scores broken_checkable_commitment by the kind of each broken promise too, counting every broken gold commitment under its kind', async () => {
    const scores = await trainScores();
    const brokenGold = train
      .filter((c) => c.patches && c.gold.commitments)
      .flatMap((c) => [...new Set(c.gold.commitments!.filter((x) => !x.kept && x.withdrawn === undefined).map((x) => `${x.message} ${x.as ?? x.kind}`))]);
    expect(scores.brokenByKind.reduce((n, r) => n + r.tp + r.fn, 0)).toBe(brokenGold.length);
    // Two messages about a method shipped under another name, one about a check placed after the call it was to precede.
    const one = await scoreDetectors([train.find((c) => c.id === 'ind-tr10-py-peek-shipped-as-first-and-dup-check-after-push')!]);
    expect(one.brokenByKind.filter((r) => r.tp + r.fp + r.fn > 0)).toEqual([
      { judge: 'detectors', label: 'exists', tp: 2, fp: 0, fn: 0 },
      { judge: 'detectors', label: 'placement', tp: 1, fp: 0, fn: 0 },
    ]);
  });

  it('stores the figures the report shows, as a fresh scoring gives them', async () => {
    const scores = await trainScores();
    const stored = readStoredScores();
    expect(stored, 'run coop-bench judge --calibrate --write-scores').toBeDefined();
    expect(stored!.splits.train).toEqual({ cases: scores.cases, labels: scores.labels.map(({ label, tp, fp, fn }) => ({ label, tp, fp, fn })) });
  });

  it.each(train.filter((x) => x.id.startsWith('clean-')))('gives the clean conversation $id no error label', async (c) => {
    const errors = (await runDetectors(caseInput(c))).labels.filter((l) => l.label !== 'first_turn_plan');
    expect(errors).toEqual([]);
  });
});

describe('questions with no reply', () => {
  it('finds questions in prose only, not in quotes, code, courtesy closings or self-answered ones', () => {
    expect(questionsIn('Which approach would you prefer? I want to keep both.')).toEqual(['Which approach would you prefer?']);
    expect(questionsIn('> Did you change foo?\nYes.\n```\nx = a ? b : c  # why?\n```')).toEqual([]);
    // A question mark with no words before it is the `?` operator, not a question.
    expect(questionsIn("I'll handle `?` inside matches().\n? support done.")).toEqual([]);
    expect(questionsIn('Done. Anything else you need from me?')).toEqual([]);
    expect(questionsIn('Should I bump the version in setup.py? No, I will leave it.')).toEqual([]);
    expect(questionsIn('Let me know if you need anything.')).toEqual([]);
  });

  it('finds requests and questions without a question mark', () => {
    expect(questionsIn('Please confirm you will not edit lines 10-20.')).toEqual(['Please confirm you will not edit lines 10-20.']);
    expect(questionsIn('Tell me which line you start at.')).toEqual(['Tell me which line you start at.']);
    expect(questionsIn('Should we bump the version in setup.py or leave that')).toEqual(['Should we bump the version in setup.py or leave that']);
    expect(questionsIn('Let me know which file you take.')).toEqual(['Let me know which file you take.']);
    expect(questionsIn("What I'll do: add the helper to utils.py.")).toEqual([]);
    // Asking without a question's form: a decision awaited, a conditional request.
    for (const asked of [
      'Need a decision from you on whether we keep the v1 endpoint.',
      'Your call: keep the old flag or drop it.',
      'Waiting on your answer about the timeout default before I go on.',
      "I need to know whether you're renaming `Batcher`.",
      "If you're editing the same file, tell me now.",
    ])
      expect(questionsIn(asked), asked).toEqual([asked]);
    for (const told of ['Let me know if you need anything.', 'Feel free to ping me.', 'Please insert your code after the marker.'])
      expect(questionsIn(told), told).toEqual([]);
  });

  it('only counts a reply sent after the question reached the partner', () => {
    const [q, crossing] = conversation(['agent1', 'Hash the whole tuple or only the first argument?'], ['agent2', 'I am adding ttl.']);
    q!.deliveredAt = { agent2: new Date(Date.UTC(2025, 0, 6, 9, 5)).toISOString() };
    const labels = questionsWithoutReply([q!, crossing!]);
    expect(labels).toHaveLength(1);
    expect(labels[0]).toMatchObject({ label: 'question_no_reply', messageId: 1, agent: 'agent1' });
    expect(labels[0]!.evidence[0]).toMatchObject({ kind: 'quote', text: 'Hash the whole tuple or only the first argument?', messageId: 1 });
  });

  it('says when the question was never delivered, and leaves an ignored question to the LLM judge', () => {
    const labels = questionsWithoutReply(conversation(['agent1', 'Validate in __init__ or lazily?', null]));
    expect(labels[0]!.evidence[1]).toEqual({ kind: 'fact', text: 'the message was never delivered to agent2, and agent2 sent nothing later' });
    expect(questionsWithoutReply(conversation(['agent1', 'Validate in __init__ or lazily?'], ['agent2', 'I am adding ttl to cache.py.']))).toEqual([]);
  });

  it('leaves out a question its sender takes back later', () => {
    expect(questionsWithoutReply(conversation(['agent1', 'Which line does `flush()` start at?'], ['agent1', 'Never mind, found it: line 40.']))).toEqual([]);
    expect(questionsWithoutReply(conversation(['agent1', 'Which line does `flush()` start at?'], ['agent1', 'Starting on `tick()` now.']))).toHaveLength(1);
  });
});

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

describe('line-number and file-path mentions', () => {
  it('counts each reference once, ranges and lists included', () => {
    const text = 'I will modify src/jinja2/filters.py lines 1161–1230 and L20-L25, see filters.py:120, https://x.org/a/b.py, Node.js, lines 10, 12 and 14.';
    expect(lineNumberMentions(text)).toEqual(['lines 1161–1230', 'L20-L25', ':120', 'lines 10, 12 and 14']);
    expect(filePathMentions(text)).toEqual(['src/jinja2/filters.py', 'filters.py']);
    expect(filePathMentions('then call response.json() on it')).toEqual([]);
    expect(lineNumberMentions('everything between line 28 and line 38 of ring.go; also line 50')).toEqual(['line 28 and line 38', 'line 50']);
  });
});

describe('detectors that abstain', () => {
  const labelsOf = (labels: { label: string }[]) => labels.map((l) => l.label);

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

  it('is sure of a question or a request after a lead-in, and leaves a question mark on a bare phrase undecided', () => {
    const ask = (text: string) => labelsOf(questionsWithoutReply(conversation(['agent1', text])));
    expect(ask('One thing before I write the docs: does `Load()` return an error or panic?')).toEqual(['question_no_reply']);
    expect(ask('One thing I need from you:\nthe exact header name `send()` writes.')).toEqual(['question_no_reply']);
    expect(ask('Last open question for you: the default of `timeout` in client.py.')).toEqual(['question_no_reply']);
    expect(ask('Heads-up: I renamed `send()` to `post()`.')).toEqual([]);
    expect(ask('Same file for the tests?')).toEqual(['undecided:question_no_reply']);
    expect(ask('Please confirm you will not edit lines 10-20.')).toEqual(['question_no_reply']);
  });

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

  it('counts what it left undecided in the metrics, apart from the labels', async () => {
    const { labels, metrics } = await runDetectors(caseInput(loadCalibrationSet().find((c) => c.id === 'ind-tr-bc-export-not-exported-py-p2a')!));
    expect(metrics.firstTurnPlan).toBe(false);
    expect(metrics.undecidedPlan).toBe(labels.filter((l) => l.label === 'undecided:first_turn_plan').length);
  });
});
