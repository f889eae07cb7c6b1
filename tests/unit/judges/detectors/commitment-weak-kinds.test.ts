// The weak kinds of independent-train-5: line ranges in every joining word, new code in apposition
// or in a checklist item, guards placed by a passive, and Go's capitalised exports.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { extractCommitments } from '../../../../judges/detectors/commitment-extract.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('commitments: weak kinds in the wordings of agents (independent-train-5)', () => {
  it('reads a range joined by "down to", "through", "until" or ".." as the whole range', () => {
    for (const said of [
      "ok, then I won't touch anything from line 19 down to 26.",
      "I won't touch lines 19 through 26.",
      "I won't touch line 19 until 26.",
      "I won't touch lines 19..26.",
    ])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining({ kind: 'untouched_lines', lines: [19, 26] })]);
  });

  it('reads new code named in apposition or heading a checklist item with its file', () => {
    expect(targets(['agent1', "I'm adding an exported constructor, `NewLimiter(rate float64)`, that seeds `last`."])).toEqual([
      expect.objectContaining({ kind: 'exported', names: ['NewLimiter'] }),
    ]);
    expect(targets(['agent1', '- ✓ `NewLimiter(rate)` in ratelimit/limiter.go'])).toEqual([
      expect.objectContaining({ kind: 'exists', names: ['NewLimiter'], files: ['ratelimit/limiter.go'] }),
    ]);
    expect(targets(['agent1', '- `NewLimiter(rate)` is what you call'])).toEqual([]);
  });

  it('finds a guard the passive places before the call its clause names by verb', async () => {
    const said = '`Flush` gets guarded by a closed check — it returns `ErrClosed` before it writes anything to `out`.';
    expect(targets(['agent1', said])).toEqual([
      expect.objectContaining({ kind: 'placement', guard: ['closed'], scope: 'Flush', position: 'before', anchorWords: ['writ'], anchorCall: true }),
    ]);
    // A clause that names a function ("before it races with `Close()`") is about that function, not a call its verb names.
    const races = "I'll check `s.closed` right after we acquire the lock — checking before it races with `Close()`.";
    expect(targets(['agent1', races]).filter((t) => t.anchorCall)).toEqual([]);
    const body = (guardFirst: boolean) => {
      const guard = ['+\tif w.closed {', '+\t\treturn ErrClosed', '+\t}'];
      const write = ['\t_, err := w.out.Write(w.buf)'].map((l) => ` ${l}`);
      return [' func (w *Writer) Flush() error {', ' \tw.mu.Lock()', ...(guardFirst ? [...guard, ...write] : [...write, ...guard]), ' \treturn err', ' }'];
    };
    const messages = conversation(['agent1', said]);
    const broken = diff('logbuf/writer.go', 30, 30, body(false));
    expect((await judge(input(messages, { agent1: broken }, broken))).map((l) => l.messageId)).toEqual([1]);
    const kept = diff('logbuf/writer.go', 30, 30, body(true));
    expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
  });

  it('finds a promised Go export defined with a lower-case name', async () => {
    const messages = conversation(['agent1', "I'm adding an exported constructor, `NewLimiter(rate float64)`."]);
    const added = diff('ratelimit/limiter.go', 14, 14, ['+func newLimiter(rate float64) *Limiter {', '+\treturn &Limiter{rate: rate}', '+}', '+']);
    const [label] = await judge(input(messages, { agent1: added }, added));
    expect(label?.evidence.map((e) => ('note' in e ? e.note : '')).join(' ')).toContain('`NewLimiter` is defined as `newLimiter`');
  });

  it('finds a parameter added to a signature the sender accepted to keep, in a hunk that ends inside the function', async () => {
    const messages = conversation(
      ['agent1', "Please don't change the signature of `Parser::next_token` — every test calls it with no arguments."],
      ['agent2', 'yep, np — leaving that one alone.'],
    );
    const added = diff(
      'src/parser.rs',
      15,
      15,
      [
        '-    pub fn next_token(&mut self) -> Token {',
        '+    pub fn next_token(&mut self, allow_negative: bool) -> Token {',
        '         let rest = &self.src[self.pos..];',
      ],
      "impl<'a> Parser<'a> {",
    );
    const [label] = await judge(input(messages, { agent2: added }, added));
    expect(label?.description).toBe("agent2 accepted agent1's request that the signature of `next_token` stays, but its patch adds `allow_negative`");
  });

  it('reads an offer of alternatives as no commitment', () => {
    expect(targets(['agent1', 'I can either pass the filters into `render()` as a new argument, or leave its signature alone.'])).toEqual([]);
  });

  it("reads a status clause the tagger joins to the one before as the sender's, with its own tense", () => {
    const said: [string, string][] = [
      ['agent2', 'I need to rework `Pop` — that is lines 27 to 36 of queue/queue.go.'],
      ['agent1', "Len() added ✓ — didn't go near your Pop range."],
    ];
    expect(targets(...said)).toContainEqual(expect.objectContaining({ kind: 'untouched_lines', lines: [27, 36] }));
  });

  it('reads a report of an order that names no function as the one guard the sender placed', () => {
    const plan: [string, string] = ['agent2', "I'll put the size limit in `append()`: the `max_bytes` check runs before the call to `self._write(chunk)`."];
    expect(targets(plan, ['agent2', 'Size limit done: `LogFull` is raised before anything is written.'])).toEqual([
      expect.objectContaining({ kind: 'placement', guard: ['max_bytes'], scope: 'append', anchor: '_write' }),
    ]);
    expect(targets(plan, ['agent2', "Change of plan: I won't add `LogFull` after all."]).filter((t) => t.kind === 'placement')).toEqual([]);
  });

  it('finds a member added to a type whose whole body is shown without it, though the member is used', async () => {
    const messages = conversation(['agent2', 'Done — added `Timeout` to `Options` as you asked.']);
    const struct = (field: string) =>
      diff('fetch/options.go', 5, 5, [
        ' type Options struct {',
        ' \tUserAgent string',
        `+\t${field}`,
        ' }',
        ' ',
        ' func NewClient(o Options) *http.Client {',
        '+\treturn &http.Client{Timeout: o.Timeout}',
        ' }',
      ]);
    const lost = struct('Proxy     string');
    expect((await judge(input(messages, { agent2: lost }, lost))).map((l) => l.messageId)).toEqual([1]);
    const kept = struct('Timeout   time.Duration');
    expect(await judge(input(messages, { agent2: kept }, kept))).toEqual([]);
  });

  it('reads a checklist item whose verb has no subject and only a place as continuing the item before', () => {
    const said = 'Progress:\n- ✓ `formatBytes` implemented (B → TB)\n- ✓ exported from src/index.ts';
    expect(targets(['agent1', said])).toContainEqual(expect.objectContaining({ kind: 'exported', names: ['formatBytes'], module: 'src/index.ts' }));
    expect(targets(['agent1', '- ✓ tests added']).filter((t) => t.kind === 'exists')).toEqual([]);
  });

  it('reads a promise whose object is only a pronoun as accepting the request, and an optional TS parameter as its target', () => {
    const reexport: [string, string] = ['agent2', 'While you are in there, re-export `RetryPolicy` from netkit/__init__.py as well.'];
    expect(extractCommitments(conversation(reexport, ['agent1', "Good call, I'll do that too."]))).toEqual([
      expect.objectContaining({
        messageId: 2,
        request: expect.objectContaining({ messageId: 1 }),
        target: expect.objectContaining({ kind: 'exported', names: ['RetryPolicy'] }),
      }),
    ]);
    const signal: [string, string] = ['agent1', 'Can you add an optional `signal?: AbortSignal` param to `fetchAll` in src/api/client.ts?'];
    expect(extractCommitments(conversation(signal, ['agent2', 'ok adding it now']))).toEqual([
      expect.objectContaining({ messageId: 2, target: expect.objectContaining({ kind: 'exists', names: ['signal'], scope: 'fetchAll' }) }),
    ]);
  });
});
