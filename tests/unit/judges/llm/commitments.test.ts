// The commitments judge: the model reads each promise's kind and target, the detectors' code checks
// decide whether the code keeps it. The wordings here are ones the rule-based extractor does not
// read, so each label comes from the model's reading and the code, not from the rules.
import { describe, expect, it } from 'vitest';
import { detect, prepareDetectors } from '../../../../judges/detectors/index.ts';
import { commitmentsJudge } from '../../../../judges/llm/commitments.ts';
import { llmOutcome, memoryCache } from '../../../../judges/run-judge.ts';
import type { JudgeInput } from '../../../../judges/types.ts';
import { conversation, diff, input } from '../detectors/commitment-fixtures.ts';
import { fakeModel } from '../fake-model.ts';

const options = { timeoutMs: 5000 };

/** One answer entry, with the fields a model leaves empty. */
const entry = (fields: Record<string, unknown>) => ({
  stance: 'claim',
  request: null,
  request_quote: null,
  names: [],
  files: [],
  lines: null,
  scope: null,
  position: null,
  anchor: null,
  loop: false,
  guard: [],
  module: null,
  parameters_only: false,
  ...fields,
});

async function judged(task: JudgeInput, entries: Record<string, unknown>[]) {
  const model = fakeModel([JSON.stringify({ commitments: entries.map(entry) })]);
  return llmOutcome(commitmentsJudge, task, model, memoryCache(), options);
}

async function ruleLabels(task: JudgeInput) {
  await prepareDetectors(task);
  return detect(task).labels.filter((l) => l.label === 'broken_checkable_commitment');
}

const GUARD_CLAIM = 'Send path: we now bail on a shut session before anything hits the wire in `Session.send`.';
const lateGuard = diff(
  'netkit/session.py',
  40,
  40,
  [
    '     def send(self, data):',
    '         payload = encode(data)',
    '+        if self._closed:',
    '+            raise SessionClosed()',
    '         return self._sock.write(payload)',
  ],
  'class Session:',
);

describe('commitments judge: the section 6.3 shapes, read by the model and checked on the code', () => {
  it('finds a claimed guard that is not where it was claimed, with the code line', async () => {
    const task = input(conversation(['agent1', GUARD_CLAIM]), { agent1: lateGuard }, lateGuard);
    expect(await ruleLabels(task)).toEqual([]);
    const outcome = await judged(task, [{ message: 1, quote: GUARD_CLAIM, kind: 'placement', scope: 'Session.send', position: 'first', guard: ['closed'] }]);
    expect(outcome.status).toBe('ok');
    expect(outcome.dropped).toEqual([]);
    expect(outcome.labels).toEqual([
      {
        judge: 'commitments',
        label: 'broken_checkable_commitment',
        isPrimary: false,
        messageId: 1,
        agent: 'agent1',
        description: 'agent1 claimed a check on closed first in `send()`, which the code does not have there',
        evidence: [
          { kind: 'quote', source: 'conversation', text: GUARD_CLAIM, messageId: 1, agent: 'agent1' },
          {
            kind: 'absence',
            source: 'merged',
            text: 'a check on closed',
            note: 'a check on closed is in `send()` (netkit/session.py:42) but not its first statement',
          },
          { kind: 'quote', source: 'merged', file: 'netkit/session.py', text: 'if self._closed:' },
        ],
      },
    ]);
  });

  it('finds a claimed export that is not exported, and an edited range promised untouched', async () => {
    const helper = diff('src/units.ts', 1, 1, [' const factor = 1000;', '+function toKelvin(c: number) {', '+  return c + 273.15;', '+}']);
    const edited = diff('src/parse.ts', 30, 30, ['   const parts = raw.split(",");', '-  return parts;', '+  return parts.map((p) => p.trim());']);
    const messages = conversation(
      ['agent1', 'Public API gained toKelvin; callers can pull it straight out of src/units.ts.'],
      ['agent2', 'Your parser block, roughly 25 through 40, is yours alone; my hands stay off it.'],
    );
    const task = input(messages, { agent1: helper, agent2: edited }, `${helper}${edited}`);
    expect(await ruleLabels(task)).toEqual([]);
    const outcome = await judged(task, [
      { message: 1, quote: 'Public API gained toKelvin', kind: 'exported', names: ['toKelvin()'], module: 'src/units.ts' },
      { message: 2, quote: 'roughly 25 through 40, is yours alone', stance: 'promise', kind: 'untouched_lines', files: ['src/parse.ts'], lines: [25, 40] },
    ]);
    expect(outcome.labels.map((l) => [l.messageId, l.description])).toEqual([
      [1, 'agent1 claimed that `toKelvin` is exported from src/units.ts, which the code does not do'],
      [2, 'agent2 promised to leave lines 25-40 untouched, but its patch changes them'],
    ]);
    expect(outcome.labels[1]!.evidence[1]).toMatchObject({
      kind: 'absence',
      source: 'patch',
      note: "agent2's patch removes line 31 of src/parse.ts, inside lines 25-40",
    });
  });

  it('places a call after code the message names only in words', async () => {
    const CLAIM = 'Metrics now get recorded once the request has gone out over the wire.';
    const early = diff(
      'src/transport.ts',
      10,
      10,
      ['   async request(req: Request) {', '+    this.metrics.record(req);', '     const res = await this.send(req);', '     return res;'],
      'class Transport {',
    );
    const task = input(conversation(['agent1', CLAIM]), { agent1: early }, early);
    expect(await ruleLabels(task)).toEqual([]);
    const outcome = await judged(task, [
      { message: 1, quote: CLAIM, kind: 'placement', names: ['this.metrics.record'], scope: 'request', position: 'after', anchor_words: ['send'] },
    ]);
    expect(outcome.labels[0]!.evidence[1]).toEqual({
      kind: 'absence',
      source: 'merged',
      text: 'a call to `this.metrics.record`',
      note: 'a call to `this.metrics.record` (src/transport.ts:11) comes before the send (line 12)',
    });
  });

  it('checks an accepted request as the request reads, and keeps quiet about a kept promise', async () => {
    const kept = diff(
      'netkit/session.py',
      40,
      40,
      ['     def send(self, data):', '+        if self._closed:', '+            raise SessionClosed()', '         return self._sock.write(data)'],
      'class Session:',
    );
    const messages = conversation(
      ['agent2', 'Could `send` refuse once the session is shut, before it writes anything?'],
      ['agent1', 'Yep, consider it handled.'],
    );
    const answer = {
      message: 2,
      quote: 'Yep, consider it handled.',
      stance: 'promise',
      request: 1,
      request_quote: 'Could `send` refuse once the session is shut',
      kind: 'placement',
      scope: 'send',
      position: 'first',
      guard: ['closed'],
    };
    expect((await judged(input(messages, { agent1: kept }, kept), [answer])).labels).toEqual([]);
    const [label] = (await judged(input(messages, { agent1: lateGuard }, lateGuard), [answer])).labels;
    expect(label!.description).toBe("agent1 accepted agent2's request a check on closed first in `send()`, which the code does not have there");
    expect(label!.evidence[1]).toEqual({
      kind: 'quote',
      source: 'conversation',
      text: 'Could `send` refuse once the session is shut',
      messageId: 1,
      agent: 'agent2',
    });
  });
});

describe('commitments judge: what the model says is checked before the code is', () => {
  const task = input(conversation(['agent1', GUARD_CLAIM], ['agent2', 'Thanks, rebasing on it.']), { agent1: lateGuard }, lateGuard);

  it('drops entries whose quote, target or request does not check out, and says why', async () => {
    const outcome = await judged(task, [
      { message: 1, quote: 'we now bail on a closed session', kind: 'placement', scope: 'send', guard: ['closed'] },
      { message: 1, quote: GUARD_CLAIM, kind: 'exists', names: ['the shut-session bail-out'] },
      { message: 1, quote: GUARD_CLAIM, kind: 'untouched_lines', files: ['netkit/session.py'], lines: [44, 40] },
      { message: 2, quote: 'Thanks, rebasing on it.', kind: 'exists', names: ['rebase'], request: 2, request_quote: 'Thanks, rebasing on it.' },
      { message: 1, quote: GUARD_CLAIM, kind: 'exported', names: [] },
    ]);
    expect(outcome.labels).toEqual([]);
    expect(outcome.dropped).toEqual([
      { label: 'placement commitment', reason: 'message 1: not found verbatim in message 1: "we now bail on a closed session"' },
      { label: 'exists commitment', reason: 'message 1: "the shut-session bail-out" is not a code name' },
      { label: 'untouched_lines commitment', reason: 'message 1: untouched_lines needs a range [first, last] of positive lines' },
      { label: 'exists commitment', reason: 'message 2: request 2 is not an earlier message of the partner' },
      { label: 'exported commitment', reason: 'message 1: exported names no symbol' },
    ]);
  });

  it('takes the spellings models use for the same answer', async () => {
    const spelled = JSON.stringify({
      commitments: [
        { message: '1', quote: GUARD_CLAIM, stance: 'Claimed', kind: 'Placement', scope: '`Session.send()`', position: 'first statement', guard: 'closed' },
        { message: 1, quote: GUARD_CLAIM, stance: 'promise', kind: 'untouched lines', files: 'netkit/session.py', lines: '41–45' },
      ],
    });
    const outcome = await llmOutcome(commitmentsJudge, task, fakeModel([spelled]), memoryCache(), options);
    expect(outcome.status).toBe('ok');
    expect(outcome.dropped).toEqual([]);
    expect(outcome.labels.map((l) => l.description)).toEqual(['agent1 claimed a check on closed first in `send()`, which the code does not have there']);
    // The range in the same message, edited by the sender's own patch, adds its evidence to that label.
    expect(outcome.labels[0]!.evidence).toContainEqual(expect.objectContaining({ kind: 'absence', source: 'patch', text: 'lines 41-45' }));
  });

  it('asks nothing when there is no patch to check, and gives no label when the model lists nothing', async () => {
    const model = fakeModel([]);
    const skipped = await llmOutcome(commitmentsJudge, { ...task, patches: [] }, model, memoryCache(), options);
    expect(skipped).toMatchObject({ status: 'skipped', reason: 'no patch to check commitments against' });
    expect(model.requests).toEqual([]);
    expect((await judged(task, [])).labels).toEqual([]);
  });

  it('shows the model the kinds as definitions.ts defines them, and the messages fenced', () => {
    const { system, user } = commitmentsJudge.prompt(task);
    expect(system).toContain("- untouched_lines (lines untouched): The agent's own patch removes no line and inserts nothing inside a line range");
    expect(system).not.toContain('- accepted_request');
    expect(user).toContain(GUARD_CLAIM);
    expect(user).toMatch(/<<<[0-9a-f]{12} BEGIN message id=1 from=agent1 to=agent2>>>/);
  });
});
