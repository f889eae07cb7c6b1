import { beforeAll, describe, expect, it } from 'vitest';
import { questionsIn, questionsWithoutReply } from '../../../../judges/detectors/questions.ts';
import { conversation } from './commitment-fixtures.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';

beforeAll(async () => {
  await loadLanguage();
});

const labelsOf = (labels: { label: string }[]) => labels.map((l) => l.label);

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

describe('questions the detector is not sure of', () => {
  it('is sure of a question or a request after a lead-in, and leaves a question mark on a bare phrase undecided', () => {
    const ask = (text: string) => labelsOf(questionsWithoutReply(conversation(['agent1', text])));
    expect(ask('One thing before I write the docs: does `Load()` return an error or panic?')).toEqual(['question_no_reply']);
    expect(ask('One thing I need from you:\nthe exact header name `send()` writes.')).toEqual(['question_no_reply']);
    expect(ask('Last open question for you: the default of `timeout` in client.py.')).toEqual(['question_no_reply']);
    expect(ask('Heads-up: I renamed `send()` to `post()`.')).toEqual([]);
    expect(ask('Same file for the tests?')).toEqual(['undecided:question_no_reply']);
    expect(ask('Please confirm you will not edit lines 10-20.')).toEqual(['question_no_reply']);
  });
});
