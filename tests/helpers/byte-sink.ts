// A writable that keeps every byte written to it, to compare what a stream carried byte for byte.
import { Writable } from 'node:stream';

export class ByteSink extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer, _: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk);
    done();
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
