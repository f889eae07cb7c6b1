// Wordings that the training conversations did not use, read by structure: verbs of
// keeping a distance as a class, pronouns pointing back at code, a completion mark that ends a
// clause; each must give the commitment the plain wording gives.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('commitments: boundaries in any wording', () => {
  it('reads a verb of keeping a distance with its distance word as leaving the code alone', () => {
    const range = { kind: 'untouched_lines', lines: [24, 28] };
    for (const said of [
      "I'll steer clear of lines 24–28.",
      'I will stay away from lines 24–28.',
      "I'll keep out of lines 24–28.",
      'Lines 24–28 are off limits for me.',
    ])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining(range)]);
    for (const said of ["I'll keep my hands off `Options::new()`.", "I'm steering clear of `Options::new()`."])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining({ kind: 'untouched_symbol', names: ['Options::new'] })]);
    // A distance word after the object's code is no boundary: "keep the flag off" sets a value.
    expect(targets(['agent1', "I'll keep the `verbose` flag off by default."])).not.toContainEqual(expect.objectContaining({ kind: 'untouched_symbol' }));
  });

  it('reads a pronoun object of a boundary as the code named before it in the sentence', () => {
    for (const said of [
      '`Session.close()` — not touching it.',
      "You're changing the default timeout in `Session.close()`, so I won't touch that one.",
      "Since you're changing `Session.close()`, I'll keep my hands off it.",
    ])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining({ kind: 'untouched_symbol', names: ['Session.close'] })]);
  });

  it('ends a clause at a completion mark between words', () => {
    const messages: [string, string][] = [
      ['agent2', 'I need to rework `Pop`, lines 27 to 36 of queue/queue.go.'],
      ['agent1', 'Len() ✓ didn’t go anywhere near your Pop range'],
    ];
    expect(targets(...messages)).toContainEqual(expect.objectContaining({ kind: 'untouched_lines', lines: [27, 36] }));
  });

  it('reads a counting claim on either side of a colon or dash as a claim on the list on the other', () => {
    const earlier: [string, string] = ['agent1', 'I add `reset()`, a read-only `remaining` property and `DEFAULT_BURST`.'];
    for (const said of [
      'All three are in: reset(), the remaining property and DEFAULT_BURST.',
      'reset(), remaining and DEFAULT_BURST: all three done.',
      'done with all three — reset(), the remaining property, DEFAULT_BURST.',
    ]) {
      const found = targets(earlier, ['agent1', said]);
      expect(found, said).toContainEqual(expect.objectContaining({ kind: 'exists', names: ['reset', 'DEFAULT_BURST'] }));
      // The described or bare-word item is the code the sender named before.
      expect(found, said).toContainEqual(expect.objectContaining({ kind: 'exists', names: ['remaining'] }));
    }
    // Counting with nothing done claims nothing.
    expect(targets(earlier, ['agent1', 'reset(), remaining and DEFAULT_BURST: all three still to do.'])).toEqual([]);
  });

  it('reads a hedged verb as a verb and "give X a Y" as Y added to X', () => {
    for (const said of ["I'll most likely give `Pool` a `close()` method.", "I'll give `Pool` a `close()` method.", "I'll add a `close()` method to `Pool`."])
      expect(targets(['agent1', said]), said).toContainEqual(expect.objectContaining({ kind: 'exists', names: ['Pool.close'] }));
    expect(targets(['agent1', "I'll give `allow()` a `cost` arg."])).toContainEqual(
      expect.objectContaining({ kind: 'exists', names: ['cost'], scope: 'allow' }),
    );
  });

  it('reads the bare subject of a clause after "after" as the anchor, and "once" as opening the place', () => {
    const after = { kind: 'placement', scope: 'request', position: 'after' };
    expect(targets(['agent1', 'request() records the metric after send comes back.'])).toContainEqual(
      expect.objectContaining({ ...after, anchorWords: ['send'] }),
    );
    expect(targets(['agent1', 'In `request()` I will call `this.metrics.record()` once `await this.send(req)` has returned.'])).toEqual([
      expect.objectContaining({ kind: 'placement', names: ['record'], position: 'after', anchor: 'send' }),
      expect.objectContaining({ ...after, anchor: 'send' }),
    ]);
  });

  it('reads code left to the partner as left alone, the code fronted or after the verb', () => {
    for (const said of ['new() I left to you.', "I'll leave `new()` to you.", 'Done with the builder. `new()` I left to you.'])
      expect(targets(['agent1', said]), said).toContainEqual(expect.objectContaining({ kind: 'untouched_symbol', names: ['new'] }));
    expect(targets(['agent1', "I'll leave a note for you in `new()`."])).not.toContainEqual(expect.objectContaining({ kind: 'untouched_symbol' }));
  });

  it('reads a new function\'s place in its own clause, and a module after "from" as no exported name', () => {
    expect(targets(['agent1', "I'll write `assertMetricName(name)` in the same file; it runs in the constructor."])).toContainEqual({
      kind: 'exists',
      names: ['assertMetricName'],
      files: [],
    });
    const exported = targets(['agent1', "slugify_heading should be importable from `mdtoc` directly; I'll add it to toc.py and to the package's `__all__`."]);
    expect(exported).toContainEqual(expect.objectContaining({ kind: 'exists', names: ['slugify_heading'] }));
    expect(exported.flatMap((t) => t.names)).not.toContain('mdtoc');
  });

  it('reads a typed signature by its name, a label before a colon as what "it" is, "pub" as exported, "stayed outside" as a boundary', () => {
    expect(targets(['agent1', '`to_roman(n: u32) -> String`: writing it as a pub fn in src/roman.rs next to from_roman.'])).toEqual([
      { kind: 'exported', names: ['to_roman'], files: ['src/roman.rs'], module: 'src/roman.rs' },
      { kind: 'exists', names: ['to_roman'], files: ['src/roman.rs'] },
    ]);
    expect(targets(['agent1', 'redo() done, stayed outside L7–L19.'])).toContainEqual(expect.objectContaining({ kind: 'untouched_lines', lines: [7, 19] }));
  });

  it('reads a list item headed by code and a dash as that code', () => {
    const items = targets([
      'agent1',
      'Reservations, in stock/warehouse.py:\n\n- `Warehouse.reserve(sku, qty)` – moves qty into a held bucket\n- `Warehouse.release(sku)` – gives it back',
    ]);
    expect(items).toEqual([expect.objectContaining({ kind: 'exists', names: ['reserve'] }), expect.objectContaining({ kind: 'exists', names: ['release'] })]);
  });

  it('reads an item of a split labelled for the partner as what the sender leaves alone', () => {
    const split = 'logbuf/writer.go split:\n- you: `Flush` (lines 31–44) — make it keep the buffer\n- me: just `Close()`, at the end of the file';
    expect(targets(['agent1', split])).toContainEqual(expect.objectContaining({ kind: 'untouched_lines', lines: [31, 44] }));
    expect(targets(['agent1', 'Split:\n- you: `Flush`\n- me: `Close()`'])).toContainEqual(
      expect.objectContaining({ kind: 'untouched_symbol', names: ['Flush'] }),
    );
    expect(targets(['agent1', 'Split:\n- me: `Close()`'])).not.toContainEqual(expect.objectContaining({ kind: 'untouched_symbol' }));
  });

  it('reads code that "needs to stay as it is please" as asked to be left alone, accepted by "I won\'t touch it"', () => {
    const messages: [string, string][] = [
      ['agent1', 'The signature of `Parser::next_token` needs to stay as it is please — the tests call it directly.'],
      ['agent2', "ok sure, I won't touch it."],
    ];
    expect(targets(...messages)).toEqual([expect.objectContaining({ kind: 'untouched_symbol', signature: true, scope: 'next_token' })]);
    // Without "please" it is the sender's own constraint: nothing is asked.
    expect(targets(['agent1', 'The signature of `Parser::next_token` needs to stay as it is.'], ['agent2', "ok sure, I won't touch it."])).toEqual([]);
  });
});
