import { describe, expect, it } from 'vitest';
import { BoundedSink } from '../../../../harness/sandbox/output.ts';
import { boundText } from '../../../../harness/errors.ts';

describe('bounded output', () => {
  it('keeps everything under the limit', async () => {
    const sink = new BoundedSink(100);
    sink.write(Buffer.from('hello '));
    sink.end(Buffer.from('world'));
    await new Promise((r) => sink.on('finish', r));
    expect(sink.text()).toBe('hello world');
    expect(sink.truncated).toBe(false);
  });

  it('keeps head and tail of a long stream and says how much it dropped', async () => {
    const sink = new BoundedSink(10);
    for (let i = 0; i < 1000; i++) sink.write(Buffer.from(String(i % 10)));
    sink.end();
    await new Promise((r) => sink.on('finish', r));
    expect(sink.truncated).toBe(true);
    expect(sink.total).toBe(1000);
    expect(sink.text()).toBe('01234\n[... 990 bytes omitted ...]\n56789');
  });

  it('bounds text the same way', () => {
    expect(boundText('abcdefghij', 4)).toBe('ab\n[... 6 characters omitted ...]\nij');
    expect(boundText('abc', 4)).toBe('abc');
  });
});
