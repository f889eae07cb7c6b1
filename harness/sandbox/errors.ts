// The sandbox a command was to run in no longer runs (killed, out of memory, deleted, stopped from
// inside): every backend throws a subclass, so the pipeline can say so whatever the backend.
export class SandboxStoppedError extends Error {
  constructor(
    message: string,
    /** How it stopped, as far as the backend knows. */
    readonly how: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SandboxStoppedError';
  }
}
