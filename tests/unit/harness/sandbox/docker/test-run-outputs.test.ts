// A test container's output split into its runs at the markers that follow each runner's output,
// wherever the engine's chunks happen to cut it.
import { describe, expect, it } from 'vitest';
import { RunOutputs } from '../../../../../harness/sandbox/docker/test-run.ts';
import { BoundedSink } from '../../../../../harness/sandbox/output.ts';

const marker = (m: string) => Buffer.from(`\n${m} `);

function feed(outputs: RunOutputs, data: Buffer, cut: number): Promise<void> {
  return new Promise((resolve) => {
    outputs.write(data.subarray(0, cut));
    outputs.write(data.subarray(cut), () => resolve());
  });
}

describe('test run outputs', () => {
  const stream = Buffer.from('first run\nok 1\n\naaaa 0\nsecond run, no newline at the end\nbbbb 1\n');

  it('gives each run its own output and exit code, at every place a chunk can end', async () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const outputs = new RunOutputs();
      const sinks = [new BoundedSink(1024), new BoundedSink(1024)];
      const codes: (number | undefined)[] = [];
      outputs.expect({
        prefix: marker('aaaa'),
        sink: sinks[0]!,
        done: (code) => {
          codes.push(code);
          outputs.expect({ prefix: marker('bbbb'), sink: sinks[1]!, done: (c) => codes.push(c) });
        },
      });
      await feed(outputs, stream, cut);
      expect(codes, `cut at ${cut}`).toEqual([0, 1]);
      expect(sinks.map((s) => s.text())).toEqual(['first run\nok 1\n', 'second run, no newline at the end']);
    }
  });

  it('a run whose container stops before its marker ends with what it printed and no exit code', async () => {
    const outputs = new RunOutputs();
    const sink = new BoundedSink(1024);
    let code: number | undefined | 'pending' = 'pending';
    outputs.expect({ prefix: marker('cccc'), sink, done: (c) => (code = c) });
    await feed(outputs, Buffer.from('Killed\n\ncc'), 5);
    outputs.ended();
    expect(code).toBeUndefined();
    expect(sink.text()).toBe('Killed\n\ncc');
  });
});
