// Code checks of placements as the code runs: a try wraps what is in its body, "after X" is after X's
// statement in the same function (X a call, a name's first use, or words naming either), and a hunk
// that starts inside a function still tells which statements come first, which sit in no loop and
// which end it.
import { describe, expect, it } from 'vitest';
import type { Target } from '../../../../judges/detectors/commitment-extract.ts';
import { checkPromise, diff, promiseTask } from './commitment-fixtures.ts';

const placement = (target: Partial<Target>): Target => ({ kind: 'placement', names: [], files: [], ...target });

/** The note and the quoted code line of the one broken promise. */
async function broken(merged: string, target: Partial<Target>) {
  const labels = await checkPromise(promiseTask(merged), placement(target));
  expect(labels).toHaveLength(1);
  return { note: (labels[0]!.evidence[1] as { note?: string }).note, quote: labels[0]!.evidence[2]?.text };
}

const kept = async (merged: string, target: Partial<Target>) => expect(await checkPromise(promiseTask(merged), placement(target))).toEqual([]);

describe('a try wraps the code in its body', () => {
  /** `push()` with a try/except added around `encode` or around `send`. */
  const push = (wrapsSend: boolean) =>
    diff(
      'harbor/uplink.py',
      11,
      11,
      wrapsSend
        ? [
            ' class Uplink:',
            '     def push(self, frame):',
            '         payload = self.codec.encode(frame)',
            '-        self.sock.send(payload)',
            '+        try:',
            '+            self.sock.send(payload)',
            '+        except ConnectionError:',
            '+            return False',
            '         return True',
          ]
        : [
            ' class Uplink:',
            '     def push(self, frame):',
            '-        payload = self.codec.encode(frame)',
            '+        try:',
            '+            payload = self.codec.encode(frame)',
            '+        except ConnectionError:',
            '+            return False',
            '         self.sock.send(payload)',
            '         return True',
          ],
    );
  const wrapsSend: Partial<Target> = { scope: 'push', position: 'around', anchor: 'send' };

  it('reports a try placed around another call, with the call it was to wrap', async () => {
    expect(await broken(push(false), wrapsSend)).toEqual({ note: 'the code agent1 added does not wrap the anchor (line 17)', quote: 'try:' });
    expect(await broken(push(false), { ...wrapsSend, anchor: undefined, anchorWords: ['send'] })).toMatchObject({
      note: expect.stringMatching(/does not wrap/),
    });
  });

  it('keeps a try whose body has the call', async () => {
    await kept(push(true), wrapsSend);
  });

  /** `renderTemplate()` with a try/catch added around `tpl(ctx)` or around `compile(src)`. */
  const render = (compileInside: boolean) =>
    diff('src/mailer/template.ts', 4, 4, [
      ' export function renderTemplate(src: string, ctx: Record<string, unknown>): string {',
      ...(compileInside
        ? ['-  const tpl = compile(src);', '+  let tpl;', '+  try {', '+    tpl = compile(src);']
        : ['   const tpl = compile(src);', '+  try {']),
      '-  const out = tpl(ctx);',
      '+    const out = tpl(ctx);',
      '+    return out.trim();',
      '+  } catch (e) {',
      '+    throw new TemplateError(String(e));',
      '+  }',
      '-  return out.trim();',
      ' }',
    ]);

  it('reports a call said to be inside the try when it is in no try of its function', async () => {
    expect(await broken(render(false), { names: ['compile'], scope: 'renderTemplate', position: 'around' })).toEqual({
      note: 'a call to `compile` is in `renderTemplate()` (src/mailer/template.ts:5) but in no try there',
      quote: 'const tpl = compile(src);',
    });
    await kept(render(true), { names: ['compile'], scope: 'renderTemplate', position: 'around' });
  });
});

describe('"after X" is after the statement of X in the same function', () => {
  /** `submit()` calling `_normalize` before or after `_validate`. */
  const submit = (after: boolean) =>
    diff('jobs/queue.py', 3, 3, [
      ' class Queue:',
      '     def submit(self, payload):',
      ...(after
        ? ['         self._validate(payload)', '+        payload = self._normalize(payload)']
        : ['+        payload = self._normalize(payload)', '         self._validate(payload)']),
      '         return self.backend.push(payload)',
    ]);

  it('finds the anchor a word names by its stem ("after validation" is after `_validate`)', async () => {
    const target = { names: ['_normalize'], scope: 'submit', position: 'after' as const, anchorWords: ['validation'] };
    expect(await broken(submit(false), target)).toEqual({
      note: 'a call to `_normalize` (jobs/queue.py:5) comes before the validation (line 6)',
      quote: 'payload = self._normalize(payload)',
    });
    await kept(submit(true), target);
  });

  it('takes a named anchor no call has for the first use of the name (before the `s.data[key]` lookup)', async () => {
    const get = diff(
      'cache/cache.go',
      20,
      20,
      [
        ' func (s *Store) Get(key string) (string, bool) {',
        ' 	v, ok := s.data[key]',
        '+	if !ok {',
        '+		v, ok = s.data[normalize(key)]',
        '+	}',
        ' 	return v, ok',
        ' }',
      ],
      'type Store struct {',
    );
    expect(await broken(get, { names: ['normalize'], scope: 'Get', position: 'before', anchor: 'data' })).toEqual({
      note: 'a call to `normalize` (cache/cache.go:23) comes after `data` (line 21)',
      quote: 'v, ok = s.data[normalize(key)]',
    });
  });

  it('does not take a name in the function’s signature for the anchor in its body', async () => {
    const read = diff('src/sensor.rs', 18, 18, [
      ' impl Station {',
      '     pub fn read(&mut self) -> Option<Reading> {',
      '         let (celsius, humidity) = self.read_raw()?;',
      '+        let humidity = humidity.max(0.0).min(100.0);',
      '         Some(Reading { celsius, humidity })',
      '     }',
      ' }',
    ]);
    await kept(read, { names: ['max'], scope: 'read', position: 'before', anchorWords: ['reading'] });
  });
});

describe('a hunk that starts inside a function', () => {
  it('knows a statement after another shown one is not the function’s first', async () => {
    const remove = (first: boolean) =>
      diff(
        'zone/zone.go',
        28,
        28,
        [
          ...(first ? ['+	z.mu.Lock()', '+	defer z.mu.Unlock()'] : []),
          ' 	name = strings.ToLower(name)',
          ' 	for i, r := range z.records {',
          ' 		if r.Name == name && r.Type == typ {',
          ...(first ? [] : ['+			z.mu.Lock()']),
          ' 			z.records = append(z.records[:i], z.records[i+1:]...)',
          ...(first ? [] : ['+			z.mu.Unlock()']),
          ' 			return true',
        ],
        'func (z *Zone) Remove(name, typ string) bool {',
      );
    expect(await broken(remove(false), { names: ['Lock'], scope: 'Remove', position: 'first' })).toEqual({
      note: 'a call to `Lock` is in `Remove()` (zone/zone.go:31) but not its first statement',
      quote: 'z.mu.Lock()',
    });
    // The first statement the hunk shows may be the function's first: not decided.
    await kept(remove(true), { names: ['Lock'], scope: 'Remove', position: 'first' });
  });

  it('knows a statement of the body after the loop, with the function’s end shown, is in no loop', async () => {
    const parse = (inLoop: boolean) =>
      diff(
        'tides/parse.go',
        18,
        18,
        [
          ' 		h, _ := strconv.Atoi(parts[0])',
          ...(inLoop ? ['+		if h < 0 || h > 23 {', '+			return nil, fmt.Errorf("tides: bad hour %d", h)', '+		}'] : []),
          ' 		out = append(out, Tide{Hour: h})',
          ' 	}',
          ...(inLoop ? [] : ['+	if n := len(out); n > 0 && out[n-1].Hour > 23 {', '+		return nil, fmt.Errorf("tides: bad hour %d", out[n-1].Hour)', '+	}']),
          ' 	return out, nil',
          ' }',
        ],
        'func ParseTides(lines []string) ([]Tide, error) {',
      );
    expect(await broken(parse(false), { names: ['Errorf'], scope: 'ParseTides', loop: true })).toEqual({
      note: 'a call to `Errorf` is in `ParseTides()` (tides/parse.go:22) but outside its loop',
      quote: 'return nil, fmt.Errorf("tides: bad hour %d", out[n-1].Hour)',
    });
    await kept(parse(true), { names: ['Errorf'], scope: 'ParseTides', loop: true });
  });

  it('does not place code elsewhere when its hunk may continue the named function an earlier hunk leaves open', async () => {
    const stats = [
      'diff --git a/src/stats.rs b/src/stats.rs',
      '--- a/src/stats.rs',
      '+++ b/src/stats.rs',
      '@@ -10,4 +10,5 @@ impl Samples {',
      '         self.values.push(v);',
      '+        self.count += 1;',
      '     }',
      ' ',
      '     pub fn mean(&self) -> Option<f64> {',
      '@@ -16,6 +17,9 @@ impl Samples {',
      '             return None;',
      '         }',
      '         for v in &self.values {',
      '+            if v.is_nan() {',
      '+                continue;',
      '+            }',
      '             sum += v;',
      '         }',
      '         Some(sum / self.values.len() as f64)',
      '',
    ].join('\n');
    await kept(stats, { scope: 'mean', position: 'first', loop: true, guard: ['is_nan'] });
  });

  it('finds a method of an impl after the end of the method the hunk starts deep inside', async () => {
    const meter = diff(
      'src/meter.rs',
      24,
      24,
      [
        '                 out.push(r.sensor.as_str());',
        '             }',
        '         }',
        '+        out.retain(|s| !s.trim().is_empty());',
        '         out',
        '     }',
        ' ',
        '     pub fn mean(&self) -> Option<f64> {',
        '-        if self.readings.is_empty() {',
        '+        if self.readings.iter().all(|r| r.sensor.trim().is_empty()) {',
        '             return None;',
        '         }',
      ],
      'impl Meter {',
    );
    const labels = await checkPromise(promiseTask(meter), { kind: 'untouched_symbol', names: ['mean'], files: [] });
    expect(labels[0]!.evidence.slice(1)).toEqual([
      expect.objectContaining({ note: "agent1's patch removes a line inside `mean` (src/meter.rs:31)" }),
      expect.objectContaining({ kind: 'quote', text: 'if self.readings.is_empty() {' }),
    ]);
  });

  it('reads the rest of the body after a block the hunk starts in, and finds its last statement', async () => {
    const call = (last: boolean) =>
      diff(
        'breaker/breaker.go',
        18,
        18,
        [
          ' 		return ErrOpen',
          ' 	}',
          ' 	err := fn()',
          ...(last ? [] : ['+	if err == nil {', '+		b.failures = 0', '+	}']),
          ' 	if err != nil {',
          ' 		b.failures++',
          ' 	}',
          ...(last ? ['+	if err == nil {', '+		b.failures = 0', '+	}'] : []),
          ' 	return err',
          ' }',
        ],
        'func (b *Breaker) Call(fn func() error) error {',
      );
    expect(await broken(call(false), { scope: 'Call', position: 'last' })).toEqual({
      note: 'the code agent1 added is in `Call()` but not at its end',
      quote: 'if err == nil {',
    });
    await kept(call(true), { scope: 'Call', position: 'last' });
  });
});
