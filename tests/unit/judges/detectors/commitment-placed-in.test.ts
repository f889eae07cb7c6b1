// Placements whose words name less than a function and a position in it: code the sender puts in a
// named function with no position ("a retry loop inside `request()`"), and code placed next to an
// anchor in a sentence that names no function ("log call added after `backend.push`"), whose function
// the checker finds in the sender's patch (commitment-places.ts, commitment-position.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

const submitBase = ['     def submit(self, payload):', '         self._validate(payload)', '         self.backend.push(payload)'];
const logAfterPush = diff('jobs/queue.py', 10, 10, [...submitBase, '+        self.backend.log("submitted")', '         return True']);
const logBeforePush = diff('jobs/queue.py', 10, 10, [
  '     def submit(self, payload):',
  '         self._validate(payload)',
  '+        self.backend.log("submitted")',
  '         self.backend.push(payload)',
  '         return True',
]);

describe('commitments: code placed next to an anchor, the function found in the code', () => {
  it('reads a report that names the anchor but no function', () => {
    expect(targets(['agent1', 'log call added after `backend.push`.'])).toEqual([
      expect.objectContaining({ kind: 'placement', names: [], position: 'after', anchor: 'backend.push' }),
    ]);
    expect(targets(['agent1', 'Check is in, ahead of the `extend_from_slice`.'])).toEqual([
      expect.objectContaining({ kind: 'placement', position: 'before', anchor: 'extend_from_slice' }),
    ]);
    // A new definition next to another is an order of definitions; a request or the partner's code is no placement of the sender's.
    expect(targets(['agent1', "I'm just adding `Len()` after `Push`."]).filter((t) => t.kind === 'placement' && !t.definition)).toEqual([]);
    expect(targets(['agent1', 'Please add the log call after `backend.push`.'])).toEqual([]);
    // Nothing placed comes before the position: an order of the sender's work, not of code.
    expect(targets(['agent1', "I'll rebase after `main` is merged."])).toEqual([]);
    expect(targets(['agent1', 'Your log call sits after `backend.push`.'])).toEqual([]);
  });

  it('reads a later report in the words of the placement, or another form of them, as that placement', () => {
    const anchored = "Then I'll do Write: same closed check, first thing after taking the lock.";
    expect(targets(['agent1', anchored], ['agent1', "Write's check is in too."])).toEqual(targets(['agent1', anchored]));
    const counting = "I'm counting polls in `poll()`: one line after the `running` increment.";
    expect(targets(['agent1', counting], ['agent1', 'counter in.'])).toEqual([
      expect.objectContaining({ kind: 'placement', scope: 'poll', position: 'after', anchor: 'running' }),
    ]);
  });

  it('checks the sender’s code in the one function of its patch where the anchor is', async () => {
    const messages = conversation(['agent1', 'log call added after `backend.push`.']);
    const broken = await judge(input(messages, { agent1: logBeforePush }, logBeforePush));
    expect(broken.map((l) => l.messageId)).toEqual([1]);
    expect(broken[0]!.evidence.map((e) => ('note' in e ? e.note : '')).join(' ')).toContain('comes before the anchor');
    expect(await judge(input(messages, { agent1: logAfterPush }, logAfterPush))).toEqual([]);
  });

  it('leaves the claim undecided when the patch adds code in a function the hunk does not show', async () => {
    // The hunk starts inside `submit()`: the added line's function is not known, so neither is the anchor's.
    const headless = diff('jobs/queue.py', 11, 11, [
      '         self._validate(payload)',
      '+        self.backend.log("submitted")',
      '         self.backend.push(payload)',
    ]);
    expect(await judge(input(conversation(['agent1', 'log call added after `backend.push`.']), { agent1: headless }, headless))).toEqual([]);
  });
});

const requestBase = ['     def request(self, method, url):', '         response = self._send(method, url)'];
const retryLoop = diff('httpkit/session.py', 20, 20, [
  ...requestBase,
  '+        for attempt in range(self.retries):',
  '+            if response.ok:',
  '+                break',
  '+            response = self._send(method, url)',
  '         return response',
]);
const withoutLoop = diff('httpkit/session.py', 20, 20, [...requestBase, '+        self.calls += 1', '         return response']);

describe('commitments: code the sender puts in a named function', () => {
  it('reads the function a verb of the sender’s puts or runs code in, not one a parameter is added to', () => {
    expect(targets(['agent1', "I'm adding a retry loop inside `request()`."])).toEqual([
      expect.objectContaining({ kind: 'placement', names: [], scope: 'request' }),
    ]);
    expect(targets(['agent1', "Great, I'll call it from `main()` in profiles/cli.py."])).toEqual([
      expect.objectContaining({ kind: 'placement', names: [], scope: 'main' }),
    ]);
    // "Unless you object" asks nothing: the plan's guard is placed.
    expect(targets(['agent1', "Unless you object, I'll add `SetEnabled(on bool)` to `Limiter`, and a guard in `Allow()`."])).toContainEqual(
      expect.objectContaining({ kind: 'placement', scope: 'Allow' }),
    );
    expect(targets(['agent1', "I'm adding a `cost` argument to `allow()`."]).filter((t) => t.kind === 'placement')).toEqual([]);
    // A Python special method is a function; "call it `X`" names the code, it calls nothing.
    expect(targets(['agent1', '`__exit__` just calls `close()`.'])).toEqual([
      expect.objectContaining({ kind: 'placement', names: ['close'], scope: '__exit__' }),
    ]);
    expect(targets(['agent1', "I'll put it in src/util.js and call it `debounce`, exported next to `noop`."]).filter((t) => t.kind === 'placement')).toEqual(
      [],
    );
    // The object of "calls" is in its clause: "`prompt()` decorator unchanged" after the semicolon is not called.
    expect(
      targets([
        'agent1',
        'I added `conditional_filters` handling in a new `_apply_overlays()` helper that `__post_init__` calls; `prompt()` decorator unchanged.',
      ]).filter((t) => t.kind === 'placement'),
    ).toEqual([]);
    // What the sender does in a function other than putting code there says no place of code.
    expect(targets(['agent1', "I'll cap slugs at 80 characters inside `slugify()` then."])).toEqual([]);
  });

  it('finds the sender’s code in the function missing from the merged code', async () => {
    const messages = conversation(['agent1', "I'm adding a retry loop inside `request()`."]);
    const lost = await judge(input(messages, { agent1: retryLoop, agent2: withoutLoop }, withoutLoop));
    expect(lost.map((l) => l.messageId)).toEqual([1]);
    expect(lost[0]!.evidence.map((e) => ('note' in e ? e.note : '')).join(' ')).toContain('none of the code agent1 added to `request()`');
    expect(await judge(input(messages, { agent1: retryLoop }, retryLoop))).toEqual([]);
  });
});

const closeBase = ['     def close(self):', '         self._closed = True', '         self._sock.close()'];
// The next method shows where `close()` ends: its last statement is known.
const closeEnd = ['         return None', ' ', '     def fileno(self):'];
const flushLast = diff('netkit/conn.py', 30, 30, [...closeBase, '+        self.flush()', ...closeEnd]);
const flushFirst = diff('netkit/conn.py', 30, 30, [closeBase[0]!, '+        self.flush()', ...closeBase.slice(1), ...closeEnd]);

describe('commitments: places named by the grammar of the sentence', () => {
  it('reads the function a causative verb makes act, an anchor named by a verb, and the return as the end', () => {
    expect(targets(['agent1', "I'll make `close()` flush the buffer first."])).toEqual([
      expect.objectContaining({ kind: 'placement', scope: 'close', position: 'first' }),
    ]);
    expect(targets(['agent1', '`tokenize()` strips comments before splitting.'])).toEqual([
      expect.objectContaining({ kind: 'placement', scope: 'tokenize', position: 'before', anchorWords: ['split'], anchorCall: true }),
    ]);
    expect(targets(['agent1', "I'll insert the hook call just before `return result` in `execute()`."])).toEqual([
      expect.objectContaining({ kind: 'placement', scope: 'execute', position: 'last' }),
    ]);
  });

  it('checks them on the sender’s code in the function', async () => {
    const first = conversation(['agent1', "I'll make `close()` flush the buffer first."]);
    expect((await judge(input(first, { agent1: flushLast }, flushLast))).map((l) => l.messageId)).toEqual([1]);
    expect(await judge(input(first, { agent1: flushFirst }, flushFirst))).toEqual([]);
    const last = conversation(['agent1', "I'll flush the buffer in `close()`, right before we return."]);
    expect((await judge(input(last, { agent1: flushFirst }, flushFirst))).map((l) => l.messageId)).toEqual([1]);
    expect(await judge(input(last, { agent1: flushLast }, flushLast))).toEqual([]);
  });
});
