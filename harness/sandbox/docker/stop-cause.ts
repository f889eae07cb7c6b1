// Why a container stopped while the harness still used it. What ran inside it (all its processes
// killed by `kill -9 -1`, its main process ended, its memory limit reached) is the agent's doing; a
// request to the engine (docker kill, docker stop, an engine shutting down), an engine error or a
// removed container is not. The engine's own record tells them apart: a stop it was asked for is
// an event `kill` or `stop` of the container since it started, and State.Error is an engine failure.
import type Docker from 'dockerode';
import { ContainerStoppedError } from './engine.ts';

/** A command run in the container, and when it was sent. */
export interface SentCommand {
  argv: string[];
  sentAt: number;
}

interface StoppedState {
  Running: boolean;
  OOMKilled: boolean;
  ExitCode: number;
  Error?: string;
  StartedAt: string;
  FinishedAt: string;
}

const COMMAND_SHOWN_CHARS = 200;
const GiB = 1024 ** 3;

/** The command as the agent wrote it (a `bash -c` script shows as the script), on one line, bounded. */
function shown(argv: string[]): string {
  const text = (argv.length === 3 && argv[1] === '-c' ? argv[2]! : argv.join(' ')).replace(/\s+/g, ' ').trim();
  return text.length > COMMAND_SHOWN_CHARS ? `${text.slice(0, COMMAND_SHOWN_CHARS)}…` : text;
}

/** Events `kill` or `stop` the engine recorded for the container between `since` and now. */
async function stopRequests(container: Docker.Container, since: string): Promise<string[]> {
  const filters = JSON.stringify({ type: ['container'], container: [container.id], event: ['kill', 'stop'] });
  const options = { since: String(Math.floor(Date.parse(since) / 1000)), until: String(Math.ceil(Date.now() / 1000) + 1), filters };
  const body = await new Promise<string>((resolve, reject) => {
    // dockerode's getEvents, on the container's own connection to its engine.
    container.modem.dial(
      { path: '/events?', method: 'GET', options, isStream: true, statusCodes: { 200: true, 500: 'server error' } },
      (error: unknown, stream: unknown) => {
        if (error) return reject(error as Error);
        const chunks: Buffer[] = [];
        const readable = stream as NodeJS.ReadableStream;
        readable.on('data', (c: Buffer | string) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c)));
        readable.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        readable.on('error', reject);
      },
    );
  });
  return body
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => (JSON.parse(line) as { Action?: string }).Action ?? '');
}

/** What ended the container's processes, from its exit code and the engine's out-of-memory flag. */
function howItsProcessesEnded(state: StoppedState, memoryBytes: number | undefined): string {
  const code = state.ExitCode;
  if (state.OOMKilled) {
    const limit = memoryBytes ? ` (${(memoryBytes / GiB).toFixed(memoryBytes % GiB ? 1 : 0)} GiB)` : '';
    return `it ran out of memory: the kernel killed processes at its memory limit${limit}, and it exited with code ${code}`;
  }
  if (code === 137) return 'all its processes were killed (SIGKILL, exit 137, not OOM-killed, not by the engine)';
  if (code > 128) return `its processes were ended by signal ${code - 128} (exit ${code}, not OOM-killed, not by the engine)`;
  return `its main process ended (exit ${code}, not by the engine)`;
}

/**
 * The error for a container that no longer runs, or undefined while it runs. `last`: the command
 * that met the stop; said to have caused it when the container stopped after it was sent.
 */
export async function stoppedContainer(container: Docker.Container, last?: SentCommand): Promise<ContainerStoppedError | undefined> {
  let info: Docker.ContainerInspectInfo;
  try {
    info = await container.inspect();
  } catch {
    return new ContainerStoppedError('removed');
  }
  const state = info.State as StoppedState;
  if (state.Running) return undefined;
  if (state.Error) return new ContainerStoppedError(`exit code ${state.ExitCode}: the engine failed: ${state.Error.slice(0, 300)}`);
  const requests = await stopRequests(container, state.StartedAt).catch(() => undefined);
  // Without the engine's record nothing tells a kill from outside apart: not the agent's.
  if (!requests) return new ContainerStoppedError(`exit code ${state.ExitCode}; the engine's events could not be read to tell why`);
  if (requests.length > 0) {
    return new ContainerStoppedError(
      `exit code ${state.ExitCode}: stopped through the engine (${[...new Set(requests)].join(', ')}: docker kill or stop, or the engine shutting down)`,
    );
  }
  const stoppedAt = Date.parse(state.FinishedAt);
  const during = last && !(stoppedAt < last.sentAt) ? `, while the agent's command \`${shown(last.argv)}\` ran` : '';
  const after = last && !during ? `, before the agent's command \`${shown(last.argv)}\` was sent (a process the agent started earlier)` : '';
  return new ContainerStoppedError(`${howItsProcessesEnded(state, info.HostConfig?.Memory)}${during}${after}`, { byItsProcesses: true });
}
