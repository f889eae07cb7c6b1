// Why a container stopped, from what the engine reports: its State (as `GET /containers/{id}/json`
// gives it) and its events `kill`/`stop` (`GET /events`, JSON lines). The container here answers
// those two calls as the engine does; the real engine's answers are exercised by
// tests/integration/agent-self-harm.test.ts (kill -9 -1) and faults.test.ts (docker kill).
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { stoppedContainer } from '../../../../../harness/sandbox/docker/stop-cause.ts';

const started = '2026-01-01T10:00:00.000000000Z';
const finished = '2026-01-01T10:05:00.000000000Z';

function container(state: Record<string, unknown>, events: string[] = []): Docker.Container {
  return {
    id: 'c0ffee',
    inspect: async () => ({
      State: { Running: false, OOMKilled: false, ExitCode: 0, Error: '', StartedAt: started, FinishedAt: finished, ...state },
      HostConfig: { Memory: 4 * 1024 ** 3 },
    }),
    modem: {
      dial: (_options: unknown, callback: (error: unknown, stream: unknown) => void) =>
        callback(null, Readable.from(events.map((action) => Buffer.from(`${JSON.stringify({ Type: 'container', Action: action, id: 'c0ffee' })}\n`)))),
    },
  } as unknown as Docker.Container;
}

const sent = (at: string) => ({ argv: ['bash', '-c', 'kill -9 -1'], sentAt: Date.parse(at) });

describe('why a container stopped', () => {
  it('a running container has not stopped', async () => {
    expect(await stoppedContainer(container({ Running: true }))).toBeUndefined();
  });

  it("all its processes killed from inside, during the agent's command: the agent's doing", async () => {
    const stopped = await stoppedContainer(container({ ExitCode: 137 }), sent('2026-01-01T10:04:59Z'));
    expect(stopped).toMatchObject({ byItsProcesses: true });
    expect(stopped!.how).toBe(
      "all its processes were killed (SIGKILL, exit 137, not OOM-killed, not by the engine), while the agent's command `kill -9 -1` ran",
    );
  });

  it('a stop before the command was sent is put on a process the agent started earlier', async () => {
    const stopped = await stoppedContainer(container({ ExitCode: 143 }), sent('2026-01-01T10:06:00Z'));
    expect(stopped).toMatchObject({ byItsProcesses: true });
    expect(stopped!.how).toMatch(
      /^its processes were ended by signal 15 \(exit 143.*before the agent's command `kill -9 -1` was sent \(a process the agent started earlier\)$/,
    );
  });

  it("out of memory: the agent's doing, said with the limit", async () => {
    const stopped = await stoppedContainer(container({ ExitCode: 137, OOMKilled: true }));
    expect(stopped).toMatchObject({ byItsProcesses: true });
    expect(stopped!.how).toMatch(/^it ran out of memory: the kernel killed processes at its memory limit \(4 GiB\), and it exited with code 137$/);
  });

  it("a kill or stop asked of the engine, an engine error, or a removed container: not the agent's", async () => {
    const killed = await stoppedContainer(container({ ExitCode: 137 }, ['kill', 'stop']), sent('2026-01-01T10:04:59Z'));
    expect(killed).toMatchObject({ byItsProcesses: false });
    expect(killed!.how).toBe('exit code 137: stopped through the engine (kill, stop: docker kill or stop, or the engine shutting down)');
    expect(await stoppedContainer(container({ ExitCode: 128, Error: 'OCI runtime failed' }))).toMatchObject({ byItsProcesses: false });
    const removed = {
      id: 'gone',
      inspect: () => Promise.reject(Object.assign(new Error('no such container'), { statusCode: 404 })),
    } as unknown as Docker.Container;
    expect(await stoppedContainer(removed)).toMatchObject({ byItsProcesses: false, how: 'removed' });
  });
});
