// The exec channel's framing on the harness side: base64 payloads ended by marker lines, decoded
// byte for byte however the stream is cut, and anything else taken as a broken channel.
import { describe, expect, it } from 'vitest';
import { ExecChannelError, PayloadReader, encodeField } from '../../../../../harness/sandbox/docker/exec-channel.ts';
import { ByteSink } from '../../../../helpers/byte-sink.ts';

const frame = (payload: Buffer, marker: string) => Buffer.from(`${payload.toString('base64')}\n${marker}\n`, 'latin1');

/** Feeds `data` to the reader in pieces of `size` bytes. */
function feed(reader: PayloadReader, data: Buffer, size: number): void {
  for (let at = 0; at < data.length; at += size) reader.write(data.subarray(at, at + size));
}

describe('exec channel framing', () => {
  const binary = Buffer.from(Array.from({ length: 256 * 40 + 7 }, (_, i) => (i * 7) % 256));

  it.each([1, 3, 4, 5, 77, 4096, 1 << 20])('decodes every byte and each marker, in pieces of %i bytes', async (size) => {
    const reader = new PayloadReader();
    const sinks = [new ByteSink(), new ByteSink(), new ByteSink()];
    const forged = Buffer.from('\n!2 0\n');
    const markers = (async () => [await reader.next(sinks[0]), await reader.next(sinks[1]), await reader.next(sinks[2])])();
    feed(reader, Buffer.concat([frame(forged, '!1 0'), frame(binary, '!2 0'), frame(Buffer.alloc(0), '!3 3')]), size);
    expect(await markers).toEqual(['!1 0', '!2 0', '!3 3']);
    expect(sinks.map((sink) => sink.bytes)).toEqual([forged, binary, Buffer.alloc(0)]);
  });

  it('hands each command its own payload, the marker after it, and keeps what came early', async () => {
    const reader = new PayloadReader();
    reader.write(frame(Buffer.alloc(0), '!ready'));
    expect(await reader.next()).toBe('!ready');
    const out = new ByteSink();
    const marker = reader.next(out);
    reader.write(Buffer.concat([frame(binary, '!1 0'), frame(Buffer.from('next'), '!2 1')]));
    expect(await marker).toBe('!1 0');
    expect(out.bytes).toEqual(binary);
    const next = new ByteSink();
    expect(await reader.next(next)).toBe('!2 1');
    expect(next.bytes.toString()).toBe('next');
  });

  it.each([
    ['text that is not base64', 'bash: fork: retry\n!1 0\n', /malformed payload/],
    ['a payload cut short', 'QUJDQ\n!1 0\n', /truncated payload/],
    ['a marker that never ends', `\n!${'x'.repeat(300)}`, /malformed marker/],
  ])('takes %s as a broken channel', async (_, data, message) => {
    const reader = new PayloadReader();
    const marker = reader.next(new ByteSink());
    reader.write(Buffer.from(data, 'latin1'));
    const error = await marker.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecChannelError);
    expect((error as Error).message).toMatch(message);
    await expect(reader.next()).rejects.toBe(error);
  });

  it('once greeted, takes output with no command in flight as a broken channel (a server that ended says "!ended")', async () => {
    const reader = new PayloadReader();
    reader.write(frame(Buffer.alloc(0), '!ready'));
    expect(await reader.next()).toBe('!ready');
    reader.refuseUnasked();
    expect(reader.failed).toBeUndefined();
    reader.write(frame(Buffer.alloc(0), '!ended'));
    expect(reader.failed).toBeInstanceOf(ExecChannelError);
    await expect(reader.next()).rejects.toThrow('output with no command in flight');

    const early = new PayloadReader();
    early.write(Buffer.concat([frame(Buffer.alloc(0), '!ready'), frame(Buffer.alloc(0), '!ended')]));
    expect(await early.next()).toBe('!ready');
    early.refuseUnasked();
    expect(early.failed?.message).toMatch(/output with no command in flight/);
  });

  it('fails whoever waits when the stream breaks', async () => {
    const reader = new PayloadReader();
    const marker = reader.next(new ByteSink());
    reader.write(Buffer.from('QUJD'));
    reader.fail(new ExecChannelError('the stream ended'));
    await expect(marker).rejects.toThrow('exec channel: the stream ended');
  });

  it('writes each field on one line of safe bytes, \\xHH for the rest', () => {
    expect(encodeField('plain-Name_1.txt=/a:b,c+d')).toBe('plain-Name_1.txt=/a:b,c+d\n');
    expect(encodeField('a\nb\\c "$x" ✓')).toBe('a\\x0ab\\x5cc \\x22\\x24x\\x22 \\xe2\\x9c\\x93\n');
  });
});
