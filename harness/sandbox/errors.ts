// The sandbox a command was to run in no longer runs (killed, out of memory, deleted, stopped from
// inside): every backend throws a subclass, so the pipeline can say so whatever the backend.
export class SandboxStoppedError extends Error {
  constructor(
    message: string,
    /** How it stopped, as far as the backend knows. */
    readonly how: string,
    options?: {
      cause?: unknown;
      /**
       * It stopped because of what ran in it (all its processes killed or ended, its memory limit
       * reached), not because of the engine, the host or someone outside: what an agent does to its
       * own sandbox is the agent's failure, scored.
       */
      byItsProcesses?: boolean;
    },
  ) {
    super(message, options);
    this.name = 'SandboxStoppedError';
    this.byItsProcesses = options?.byItsProcesses ?? false;
  }

  readonly byItsProcesses: boolean;
}

/**
 * An agent went over a limit its sandbox's backend watches rather than enforces (its writable
 * storage, where the engine has no quota): the backend stopped the sandbox; the agent's ending is
 * `status`, scored.
 */
export class SandboxLimitError extends Error {
  constructor(
    message: string,
    readonly status: 'disk_limit',
  ) {
    super(message);
    this.name = 'SandboxLimitError';
  }
}

const GiB = 1024 ** 3;

/** A size as both backends' disk-limit messages give it. */
export function formatGiB(bytes: number): string {
  return `${(bytes / GiB).toFixed(bytes < 10 * GiB ? 2 : 1)} GiB`;
}
