// The process discipline of every backend's exec, so that a command behaves the same whatever runs
// it.

export const DEFAULT_EXEC_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** How long past its own time limit a command's output may stay open before the caller stops waiting. */
export const EXEC_GRACE_MS = 10_000;

/**
 * Runs "$@" under timeout(1), which gives it a process group of its own, and when it returns kills
 * whatever is left of that group (background jobs, a fork bomb): an agent's command cannot starve
 * its next ones of processes, nor hold the exec's output open. `kill` is a builtin, so it works even
 * when the pids limit is exhausted. timeout(1) with -s KILL exits 137 when it fired.
 */
const boundedRun = (redirect: string) =>
  `timeout -s KILL "$0" "$@"${redirect} & pid=$!; wait "$pid"; status=$?; n=0; ` +
  'while [ "$n" -lt 100 ] && kill -s KILL -- "-$pid" 2>/dev/null; do n=$((n + 1)); done; exit "$status"';

/** An asynchronous list reads /dev/null (POSIX Shell Command Language 2.9.3): given input reaches it through fd 3. */
const BOUNDED_RUN_WITH_INPUT = `exec 3<&0; ${boundedRun(' <&3 3<&-')}`;
const BOUNDED_RUN = boundedRun('');

/** Whole seconds of the time limit (at least one). */
export function limitSeconds(timeoutMs: number | undefined): number {
  return Math.max(1, Math.ceil((timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS) / 1000));
}

/** `cmd` wrapped in the bounded run for `seconds`; `withInput` when the exec gives it a stdin to read. */
export function boundedCommand(cmd: string[], seconds: number, withInput = false): string[] {
  return ['sh', '-c', withInput ? BOUNDED_RUN_WITH_INPUT : BOUNDED_RUN, String(seconds), ...cmd];
}
