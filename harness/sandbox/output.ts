// Bounded capture of a stream: memory stays flat whatever a process prints.
import { Writable } from 'node:stream';

/** Keeps the first and last `maxBytes / 2` bytes written to it and counts the rest. */
export class BoundedSink extends Writable {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  total = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.total += chunk.length;
    const half = Math.floor(this.maxBytes / 2);
    if (this.headBytes < half) {
      const take = chunk.subarray(0, half - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length > 0) {
      const joined = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
      this.tail = joined.length > half ? Buffer.from(joined.subarray(joined.length - half)) : joined;
    }
    done();
  }

  get truncated(): boolean {
    return this.total > this.headBytes + this.tail.length;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (!this.truncated) return head + this.tail.toString('utf8');
    const omitted = this.total - this.headBytes - this.tail.length;
    return `${head}\n[... ${omitted} bytes omitted ...]\n${this.tail.toString('utf8')}`;
  }
}

/** `sink`, with every chunk also handed to `onChunk` first (a caller streaming a command's output). */
export function observed(sink: Writable, onChunk?: (chunk: Buffer) => void): Writable {
  if (!onChunk) return sink;
  return new Writable({
    write: (chunk: Buffer, _, done) => {
      onChunk(chunk);
      sink.write(chunk, done);
    },
  });
}
