// Wordings of ranges, places and code given to the partner, each read as what it commits to, with a
// wording that must not match: ranges after a path or written "18..28", code given to the partner
// ("stays yours", "is your side"), what "to you" leaves, a guard's place word, a "wrap" that is no
// wrapper, code alone in a list item, a file that is its own clause's subject, a check's words, and a
// promise taken back by the last part of its name.
import { beforeAll, describe, expect, it } from 'vitest';
import { countMentions } from '../../../../judges/detectors/mentions.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('commitments: line ranges and code given to the partner', () => {
  it.each([
    ['Claiming rota/shifts.py:11-16 for overnight shifts.', "ack, I'll keep out of 11-16 entirely.", [11, 16]],
    ['Taking `pay()` (src/meter.rs 13–17) for the cap.', "Then I'll stay clear of 13–17 and do expiry.", [13, 17]],
    ['Parse skips fences now: toc/toc.go lines 18-28, all mine.', "I won't touch 18..28.", [18, 28]],
  ])('reads bare numbers as the range the partner named: %s / %s', (claim, reply, lines) => {
    expect(targets(['agent2', claim], ['agent1', reply])).toContainEqual(expect.objectContaining({ kind: 'untouched_lines', lines }));
  });

  it('counts a range after a path as one line mention, and a bare repeat of it as another', () => {
    expect(countMentions([{ message: 'Taking src/meter.rs 13–17.' }, { message: 'I stay clear of 13–17.' }]).lineNumberMentions).toBe(2);
    // A quantity after a path, or a bare range that repeats no line range, is no line mention.
    expect(countMentions([{ message: 'Touched lib.py 2-3 weeks ago' }, { message: 'versions 1..2' }]).lineNumberMentions).toBe(0);
  });

  it.each(['Ok, `Parse` stays yours.', '👍 `Setpoint` is your side.', '`Setpoint` is your part'])(
    'reads code given to the partner as left alone: %s',
    (said) => {
      expect(targets(['agent1', said])).toEqual([expect.objectContaining({ kind: 'untouched_symbol' })]);
    },
  );

  it('gives nothing in "your call" or "stays as fast"', () => {
    expect(targets(['agent1', '`retries` is your call.'])).toEqual([]);
    expect(targets(['agent1', '`Setpoint` stays fast.'])).not.toContainEqual(expect.objectContaining({ kind: 'untouched_symbol' }));
  });

  it('leaves to the partner only what comes before "to you"', () => {
    expect(targets(['agent1', "I'm leaving `compute_dose` to you and only changing `max_daily`."])).toEqual([
      expect.objectContaining({ kind: 'untouched_symbol', names: ['compute_dose'] }),
    ]);
  });
});

describe('commitments: what a sentence places, adds and names', () => {
  it('reads "constructor validation" as a check in the constructor, not one testing "constructor"', () => {
    const [placed] = targets(['agent1', 'constructor validation done: new() calls a small validate() helper first.']);
    expect(placed).toEqual(expect.objectContaining({ kind: 'placement', scope: 'new', position: 'first' }));
    expect(placed!.guard ?? []).not.toContain('constructor');
  });

  it('reads no wrapper in "midnight wrap in `travel_time`", and the wrapped call in "wrap the `fetch` call"', () => {
    expect(targets(['agent1', "I'll do the midnight wrap in `travel_time`."])).not.toContainEqual(expect.objectContaining({ position: 'around' }));
    expect(targets(['agent1', "I'll wrap the `fetch` call in a try/catch in `load()`."])).toContainEqual(
      expect.objectContaining({ position: 'around', anchor: 'fetch', scope: 'load' }),
    );
  });

  it.each([
    ["the ascii check is encode's opening statement, before the table is built.", { scope: 'encode', position: 'first' }],
    ['encode: ascii check up top ✓', { scope: 'encode', position: 'first' }],
    ['reserve(): availability check before hold, done', { scope: 'reserve', position: 'before', anchorWords: ['hold'] }],
    ['Checkout: empty-dock guard in, ahead of the slice indexing ✓', { scope: 'Checkout', position: 'before', anchorWords: ['slice'] }],
  ])('reads a guard and its place in whatever order: %s', (said, place) => {
    expect(targets(['agent1', said])).toContainEqual(expect.objectContaining({ kind: 'placement', ...place }));
  });

  it('reads no guard place from a label, "after all" or the function’s own name', () => {
    expect(targets(['agent1', 'Plan: the bounds check goes first.'])).toEqual([]);
    expect(targets(['agent1', "I won't add `normalize_key()` after all."]).filter((t) => t.kind === 'placement')).toEqual([]);
    expect(targets(['agent1', "I'm adding the capacity check to `Writer::write`, before we write anything."])).not.toContainEqual(
      expect.objectContaining({ anchorWords: ['write'] }),
    );
  });

  it.each([
    ['Then I have scale(). It fires as the last step, just before scale() returns.', { scope: 'scale', position: 'last' }],
    [
      "in `reserve()` I'm going to check `this.ledger.isFree(seat)` and throw. The check goes before we call `this.ledger.hold(...)`.",
      { scope: 'reserve', position: 'before', anchor: 'hold' },
    ],
    [
      'the `self.client.get(...)` call in fetch_departures gets wrapped in try/except TimeoutError.',
      { scope: 'fetch_departures', position: 'around', anchor: 'get' },
    ],
  ])('reads the place of code the words do not name: %s', (said, place) => {
    expect(targets(['agent1', said])).toContainEqual(expect.objectContaining({ kind: 'placement', names: [], ...place }));
  });

  it('reads a field after "into" as no function', () => {
    expect(targets(['agent1', 'I will have `Dock.Checkout` return `ErrEmpty`, checked before we index into d.bikes.'])).not.toContainEqual(
      expect.objectContaining({ scope: 'bikes' }),
    );
  });

  it('reads code alone in a list item as new code, and a question item as none', () => {
    const listed = targets(['agent1', "I'm adding to board.ts:\n- `moveCard(id, to)`\n- `archiveColumn(name)`: moves a column's cards\n- `cardCount()`"]);
    expect(listed.flatMap((t) => t.names)).toEqual(['moveCard', 'archiveColumn', 'cardCount']);
    expect(targets(['agent1', 'Which one?\n- `moveCard(id, to)`?'])).toEqual([]);
  });

  it('does not put code in a file that is the subject of its own clause', () => {
    expect(targets(['agent1', "parseRobots is in; index.ts got `export * from './robots'`."])).not.toContainEqual(
      expect.objectContaining({ kind: 'exists', files: ['index.ts'] }),
    );
  });

  it('reads the words of a reported check as the guard, not as code that must exist', () => {
    const said = targets(
      ['agent1', 'in `enqueue()`, before the heappush, I will bail out with QueueClosed if close() was called'],
      ['agent1', 'Closed check is in, via a small `_ensure_open()` helper.'],
    );
    expect(said.filter((t) => t.kind === 'exists').flatMap((t) => t.names)).not.toContain('close');
  });

  it('takes a promise back by the last part of its name', async () => {
    const messages = conversation(
      ['agent1', "I'll add a `Rack.vintage_range()` helper."],
      ['agent2', 'That duplicates `oldest()`. Do you need it?'],
      ['agent1', "Fair, dropping vintage_range, I won't add it."],
    );
    const patch = diff('cellar/rack.py', 1, 1, [' class Rack:', '+    def store(self, bottle):', '+        pass']);
    expect(await judge(input(messages, { agent1: patch }, patch))).toEqual([]);
  });
});
