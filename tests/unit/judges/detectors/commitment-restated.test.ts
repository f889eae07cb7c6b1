// Reports that restate what the sender committed to before, by naming the code bare or in backticks
// ("count_ones is done ✅", "offset param is in."), checked as the earlier commitment's target
// (commitment-restated.ts); and a request that names the function by a possessive.
import { beforeAll, describe, expect, it } from 'vitest';
import { extractCommitments } from '../../../../judges/detectors/commitment-extract.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

const promise = "I'll add `Store.reserve()` and `Store.release()` to stock/store.py, and a `held` dict on the instance.";

describe('commitments: a report that restates the sender’s earlier promise', () => {
  it.each([
    ['release ✓', ['Store.release']],
    ['reserve/release + held are in.', ['Store.reserve', 'Store.release']],
    ['`release()` done, `held` too', ['Store.release']],
  ])('claims the promised code it names, as the promise named it: %s', (report, names) => {
    const restated = targets(['agent1', promise], ['agent2', 'ok'], ['agent1', report]).filter((t) => t.files.includes('stock/store.py'));
    expect(restated.flatMap((t) => t.names)).toEqual(expect.arrayContaining(names));
    expect(restated.flatMap((t) => t.names).filter((n) => !names.includes(n) && n !== 'held')).toEqual([]);
  });

  it.each(['release is not in yet', 'release will be in after lunch', 'is release in?'])(
    'claims nothing from an unfinished report, a plan or a question: %s',
    (report) => {
      expect(targets(['agent1', promise], ['agent2', 'ok'], ['agent1', report]).filter((t) => t.files.includes('stock/store.py'))).toEqual([]);
    },
  );

  it('restates only the sender’s own promises', () => {
    expect(targets(['agent1', promise], ['agent2', 'release ✓'])).not.toContainEqual(expect.objectContaining({ files: ['stock/store.py'] }));
  });

  it('restates an export only in words that say export, and a placement only where the report names its function', () => {
    const exported = ['agent1', "I'll add `MAX_DELAY` to src/retry.ts and export it from src/index.ts."] as [string, string];
    expect(targets(exported, ['agent1', 'MAX_DELAY added.']).map((t) => t.kind)).not.toContain('exported');
    expect(targets(exported, ['agent1', 'MAX_DELAY added and exported.']).map((t) => t.kind)).toContain('exported');
    const placed = ['agent1', "I'll call `self._check()` as the first line of `insert()`."] as [string, string];
    expect(targets(placed, ['agent1', '_check done']).map((t) => t.kind)).not.toContain('placement');
    expect(targets(placed, ['agent1', '_check is wired into insert']).map((t) => t.kind)).toContain('placement');
  });

  it('restates an export in an export word, whatever says it is done', () => {
    const promised = ['agent1', 'New `parseCron` in src/cron.ts, exported from src/index.ts.'] as [string, string];
    expect(targets(promised, ['agent1', 'parseCron is up, exported from index.ts too'])).toContainEqual(
      expect.objectContaining({ kind: 'exported', names: ['parseCron'], module: 'src/index.ts' }),
    );
    expect(targets(promised, ['agent1', 'parseCron is up'])).toEqual([]);
  });

  it.each(['Stayed out of dispense.', "didn't go near dispense", 'dispense untouched'])(
    'restates code given to the partner in words that say the sender kept away: %s',
    (report) => {
      expect(targets(['agent1', '`dispense()` is all yours.'], ['agent1', `restock() added. ${report}`])).toContainEqual(
        expect.objectContaining({ kind: 'untouched_symbol', names: ['dispense'] }),
      );
    },
  );

  it('restates code promised to stay as it was in words that say it stayed', () => {
    const boundary = ['agent1', "I won't touch `Histogram::new`."] as [string, string];
    expect(targets(boundary, ['agent1', 'Clamp is in. new() untouched.'])).toContainEqual(
      expect.objectContaining({ kind: 'untouched_symbol', names: ['Histogram::new'] }),
    );
    expect(targets(boundary, ['agent1', 'new() is done'])).not.toContainEqual(expect.objectContaining({ kind: 'untouched_symbol' }));
  });

  it('finds a method promised on a type and reported by its bare name missing, though a call of the same name is there', async () => {
    const messages = conversation(
      ['agent1', 'Adding `BitSet::count_ones()` in src/bitset.rs: popcount across the words.'],
      ['agent2', 'contains() from me'],
      ['agent1', 'count_ones is done ✅'],
    );
    const patch = diff(
      'src/bitset.rs',
      10,
      10,
      ['     }', '+', '+    pub fn popcount(&self) -> u32 {', '+        self.words.iter().map(|w| w.count_ones()).sum()', '+    }', ' }'],
      'impl BitSet {',
    );
    const labels = await judge(input(messages, { agent1: patch }, patch));
    expect(labels.map((l) => l.messageId)).toEqual([1, 3]);
    const notes = labels[1]!.evidence.map((e) => ('note' in e ? e.note : e.text));
    // The call kept in the merged code is no definition lost in the merge.
    expect(notes).toContain("agent1's patch never defined `BitSet::count_ones`");
    expect(notes.join(' ')).not.toContain('instead');
  });
});

describe('commitments: a request that names the function by a possessive', () => {
  it('is the function whose signature the partner accepted to keep', () => {
    const accepted = extractCommitments(
      conversation(
        ['agent2', "Request: please keep `format_total`'s signature as it is. My exporter calls it as `format_total(amount, currency=...)`."],
        ['agent1', "👍 will do. I'm only adding thousands separators."],
      ),
    ).filter((c) => c.request);
    expect(accepted.map((c) => c.target)).toEqual([expect.objectContaining({ kind: 'untouched_symbol', parameters: true, scope: 'format_total' })]);
  });
});
