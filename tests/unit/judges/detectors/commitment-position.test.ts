// Placements read from where, not what: the function and the place in it come from the words, what
// was placed from the sender's own patch (commitment-places.ts, commitment-position.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

const dispatchBase = [' async function dispatch(job, handler) {', '   const slot = await acquire(job.queue);'];
const wrapped = [
  ...dispatchBase,
  '-  const result = await handler(job.payload);',
  '-  release(slot);',
  '-  return result;',
  '+  try {',
  '+    return await handler(job.payload);',
  '+  } finally {',
  '+    release(slot);',
  '+  }',
  ' }',
];

/** `Store.write()` with the sender's read-only check added as its first statement or after the lock. */
function write(first: boolean): string {
  const check = ['+        if self.read_only:', '+            raise ReadOnlyError(self.path)'];
  const lock = ['         with self._lock:', '             self._data[key] = value'];
  return diff('kvlite/store.py', 20, 20, [' class Store:', '     def write(self, key, value):', ...(first ? [...check, ...lock] : [...lock, ...check]), ' ']);
}

describe('commitments: placements checked by the position of the sender’s own code', () => {
  it('reads a construct placed around a call in a named function, whatever the construct is', () => {
    expect(targets(['agent1', "I'll put a try/finally around the handler call in `dispatch()` and move the release into the finally."])).toEqual([
      expect.objectContaining({ kind: 'placement', names: [], scope: 'dispatch', position: 'around', anchorWords: ['handler'] }),
    ]);
    expect(targets(['agent1', 'Then the check itself goes at the top of `write()`, before we even take the lock.'])).toEqual([
      expect.objectContaining({ kind: 'placement', scope: 'write' }),
    ]);
    // The function the message named before: "its first statement" is `handle()`'s.
    expect(targets(['agent1', "About `Server.handle()` in src/server.ts. I'll make the auth check its first statement."])).toEqual([
      expect.objectContaining({ kind: 'placement', names: [], scope: 'handle', position: 'first' }),
    ]);
    // A Go method named without backticks after a place word.
    expect(targets(['agent1', "I'll add the closed check first thing in Drain."])).toContainEqual(
      expect.objectContaining({ kind: 'placement', names: [], scope: 'Drain', position: 'first' }),
    );
    // A coordinate clause's place is its own verb's: "around the write" is not in `__init__`, where only the creation is.
    expect(targets(['agent1', "I'll create it in `__init__` and hold it around the write."]).filter((t) => t.scope === '__init__')).toEqual([
      { kind: 'placement', names: [], files: [], scope: '__init__' },
    ]);
    // "on top of" is no place; a function said to follow another is a definition's order.
    expect(targets(['agent1', "I'm rewriting `formatPrice()` in lib/price.js on top of Intl.NumberFormat."])).toEqual([]);
    expect(targets(['agent1', '`Reset()` landed after `Allow()`.']).filter((t) => t.kind === 'placement' && !t.definition)).toEqual([]);
  });

  it('finds the placed code lost in the merge, and keeps it when the merge has it', async () => {
    const messages = conversation(['agent1', "I'll put a try/finally around the handler call in `dispatch()` and move the release into the finally."]);
    const own = diff('lib/dispatch.js', 5, 5, wrapped);
    const partner = diff('lib/dispatch.js', 5, 5, [...dispatchBase, '+  const started = Date.now();', '   const result = await handler(job.payload);']);
    const lost = await judge(input(messages, { agent1: own, agent2: partner }, partner));
    expect(lost.map((l) => l.messageId)).toEqual([1]);
    expect(lost[0]!.evidence.map((e) => ('note' in e ? e.note : '')).join(' ')).toContain(
      'none of the code agent1 added to `dispatch()` in its own patch is in the merged code',
    );
    expect(await judge(input(messages, { agent1: own }, own))).toEqual([]);
  });

  it('reads a report with a concession ("even if it throws") as a report, and a condition as committing to nothing', async () => {
    const promise = "I'll put a try/finally around the handler call in `dispatch()` and move the release into the finally.";
    const report = 'the handler call is in a try/finally now, so release() runs even if it throws';
    const messages = conversation(['agent1', promise], ['agent2', 'ok'], ['agent1', report]);
    const own = diff('lib/dispatch.js', 5, 5, wrapped);
    const partner = diff('lib/dispatch.js', 5, 5, [...dispatchBase, '+  const started = Date.now();', '   const result = await handler(job.payload);']);
    expect((await judge(input(messages, { agent1: own, agent2: partner }, partner))).map((l) => l.messageId)).toEqual([1, 3]);
    expect(targets(['agent1', 'If the handler throws, I will put a try/finally around the handler call in `dispatch()`.'])).toEqual([]);
  });

  it('labels the placement alike in its paraphrases', async () => {
    const own = diff('lib/dispatch.js', 5, 5, wrapped);
    const partner = diff('lib/dispatch.js', 5, 5, [...dispatchBase, '+  const started = Date.now();', '   const result = await handler(job.payload);']);
    for (const said of [
      "I'll put a try/finally around the handler call in `dispatch()` and move the release into the finally.",
      "I'll wrap the handler call in `dispatch()` in a try/finally.",
      "In `dispatch()`, I'm wrapping the handler call with try/finally.",
      "I'm putting a try/finally around the call to `handler` in `dispatch()`.",
      "Looked at `dispatch()`: it leaks the slot. I'll wrap the handler call in a try/finally.",
    ]) {
      const labels = await judge(input(conversation(['agent1', said]), { agent1: own, agent2: partner }, partner));
      expect(
        labels.map((l) => l.messageId),
        said,
      ).toEqual([1]);
    }
  });

  it('reads a completion report in the words of an earlier placement as that placement', async () => {
    const messages = conversation(
      ['agent1', "I'll put a try/finally around the handler call in `dispatch()` and move the release into the finally."],
      ['agent2', 'ok'],
      ['agent1', 'try/finally in, release() now always runs even when the handler throws.'],
    );
    const own = diff('lib/dispatch.js', 5, 5, wrapped);
    const partner = diff('lib/dispatch.js', 5, 5, [...dispatchBase, '+  const started = Date.now();', '   const result = await handler(job.payload);']);
    expect((await judge(input(messages, { agent1: own, agent2: partner }, partner))).map((l) => l.messageId)).toEqual([1, 3]);
    // A report in words the sender never used for a placement restates none.
    expect(targets(['agent1', "I'll put a try/finally around the handler call in `dispatch()`."], ['agent2', 'ok'], ['agent1', 'Docs done.'])).toEqual([]);
  });

  it('finds placed code outside the stated place: not around its anchor, not first', async () => {
    const around = conversation(['agent1', "I'll put a try/finally around the handler call in `dispatch()`."]);
    const elsewhere = diff('lib/dispatch.js', 5, 5, [
      ...dispatchBase,
      '   const result = await handler(job.payload);',
      '+  try {',
      '+    log(result);',
      '+  } finally {',
      '+    release(slot);',
      '+  }',
      '   return result;',
      ' }',
    ]);
    expect((await judge(input(around, { agent1: elsewhere }, elsewhere))).map((l) => l.messageId)).toEqual([1]);
    const top = conversation(['agent1', 'The check goes at the top of `write()`.']);
    expect((await judge(input(top, { agent1: write(false) }, write(false)))).map((l) => l.messageId)).toEqual([1]);
    expect(await judge(input(top, { agent1: write(true) }, write(true)))).toEqual([]);
  });

  it('reads what a function begins with, or does before anything else, as its first statement', async () => {
    for (const said of ['`write()` now begins with the read-only check.', '`write()` checks the read-only flag before anything else.']) {
      const messages = conversation(['agent1', said]);
      expect(
        (await judge(input(messages, { agent1: write(false) }, write(false)))).map((l) => l.messageId),
        said,
      ).toEqual([1]);
      expect(await judge(input(messages, { agent1: write(true) }, write(true))), said).toEqual([]);
    }
    // "anything" as the subject of a clause names what comes after the check, not every statement.
    expect(targets(['agent1', "I'll check `self._closed` in `flush()` before anything is written."]).map((t) => t.position)).not.toContain('first');
  });

  it('leaves undecided what the tested code does not show in the named function', async () => {
    // The partner renamed the function: the code is kept, its place not known.
    const messages = conversation(['agent2', 'Done: `env` is applied in `edit_file` before the subprocess call.']);
    const own = diff(
      'editor.py',
      30,
      30,
      ['         try:', '+            environ = dict(os.environ)', '             subprocess.run(cmd, env=environ)'],
      'def edit_file(self, filename):',
    );
    const merged = diff(
      'editor.py',
      30,
      30,
      ['         try:', '+            environ = dict(os.environ)', '             subprocess.run(cmd, env=environ)'],
      'def edit_files(self, filenames):',
    );
    expect(await judge(input(messages, { agent2: own }, merged))).toEqual([]);
  });

  // Each shape: the sender's patch with the code misplaced, then placed as said; every wording must tell them apart.
  const shapes = {
    'first in the function': {
      path: 'cache.py',
      misplaced: [
        ' class Cache:',
        '     def get(self, key):',
        '         value = self._store.get(key)',
        '+        if self._bypass:',
        '+            return None',
        '         return value',
        ' ',
      ],
      placed: [
        ' class Cache:',
        '     def get(self, key):',
        '+        if self._bypass:',
        '+            return None',
        '         value = self._store.get(key)',
        '         return value',
        ' ',
      ],
      wordings: [
        "I'll add a bypass check at the top of `get()`.",
        'The bypass check will be the first thing `get()` does.',
        '`get()` returns early on bypass before touching the store.',
        'Putting the bypass guard as the very first statement in `get()`.',
        'Done: get() checks the bypass flag first.',
      ],
    },
    'inside the loop': {
      path: 'queue.go',
      misplaced: [
        ' func (q *Queue) Drain(ctx context.Context) error {',
        '+\tif err := ctx.Err(); err != nil {',
        '+\t\treturn err',
        '+\t}',
        ' \tfor _, j := range q.jobs {',
        ' \t\tq.sink.Put(j)',
        ' \t}',
        ' \treturn nil',
        ' }',
        ' ',
      ],
      placed: [
        ' func (q *Queue) Drain(ctx context.Context) error {',
        ' \tfor _, j := range q.jobs {',
        '+\t\tif err := ctx.Err(); err != nil {',
        '+\t\t\treturn err',
        '+\t\t}',
        ' \t\tq.sink.Put(j)',
        ' \t}',
        ' \treturn nil',
        ' }',
        ' ',
      ],
      wordings: [
        "I'll check `ctx.Err()` inside the loop in `Drain()`.",
        'The ctx check goes inside the loop of `Drain()`, once per job.',
        '`Drain()` now checks the context on every iteration.',
        "In `Drain()` I'll test the context at the start of each pass through the loop.",
        'Cancellation check added to `Drain()`, inside the for loop.',
      ],
    },
    'after a call': {
      path: 'client.ts',
      misplaced: [
        ' class Client {',
        '   async request(req: Req) {',
        '+    this.metrics.record(req);',
        '     const res = await this.send(req);',
        '     return res;',
        '   }',
        ' }',
      ],
      placed: [
        ' class Client {',
        '   async request(req: Req) {',
        '     const res = await this.send(req);',
        '+    this.metrics.record(req);',
        '     return res;',
        '   }',
        ' }',
      ],
      wordings: [
        "I'll record metrics in `request()` right after `await this.send(req)`.",
        'Metrics get recorded in `request()` once the send returns.',
        "I'm adding a metrics call to `request()`, after the send.",
        '`request()` records the metric after it sends.',
        'Metric recording is in `request()`, after the send.',
      ],
    },
  };
  for (const [shape, { path, misplaced, placed, wordings }] of Object.entries(shapes)) {
    it(`tells code placed ${shape} from code placed elsewhere, in every wording`, async () => {
      const wrong = diff(path, 10, 10, misplaced);
      const right = diff(path, 10, 10, placed);
      for (const said of wordings) {
        const messages = conversation(['agent1', said]);
        expect(
          (await judge(input(messages, { agent1: wrong }, wrong))).map((l) => l.messageId),
          said,
        ).toEqual([1]);
        expect(await judge(input(messages, { agent1: right }, right)), said).toEqual([]);
      }
    });
  }
});
