// The Docker sandbox's exec, through the persistent exec channel and through a `docker exec` per
// command (the channel turned off): the same semantics either way (exit code, both streams, cwd,
// env, the time limit, bounded output, the process group killed). Then the channel's own cases:
// binary and huge payloads, a channel that dies under a command or between two, an image or a
// container that cannot run it, a container that stops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { engineAt, requireEngine } from '../../harness/sandbox/docker/engine.ts';
import { poolImage, type PoolImage } from '../../harness/sandbox/docker/images.ts';
import { DockerSandbox } from '../../harness/sandbox/docker/sandbox.ts';
import { removeLabelledContainers } from '../../harness/sandbox/docker/containers.ts';
import { ExecChannel } from '../../harness/sandbox/docker/exec-channel.ts';
import { DEFAULT_LIMITS } from '../../harness/sandbox/types.ts';
import { containerLabels } from '../../harness/sandbox/labels.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { loadPool } from '../../tasks/pools.ts';
import { uniqueRun } from '../helpers/run-db.ts';
import { ByteSink } from '../helpers/byte-sink.ts';

const RUN = uniqueRun('docker-exec');
let image: PoolImage;

beforeAll(async () => {
  const engine = await requireEngine(engineAt());
  image = await poolImage(engine, loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1')), { log: () => undefined });
});

afterAll(async () => {
  await removeLabelledContainers([engineAt()], RUN);
});

const start = (execChannel: boolean) =>
  DockerSandbox.start(image.engine, { image: image.id, labels: containerLabels(RUN, 'agent'), limits: DEFAULT_LIMITS }, { execChannel });

async function withSandbox(execChannel: boolean, body: (sandbox: DockerSandbox) => Promise<void>): Promise<void> {
  const sandbox = await start(execChannel);
  try {
    await body(sandbox);
  } finally {
    await sandbox.remove();
  }
}

/** The channel servers running in a container, seen through a `docker exec` of their own. */
async function servers(sandbox: DockerSandbox): Promise<string[]> {
  const direct = new DockerSandbox(sandbox.container, { execChannel: false });
  // The bash running the script; not the main process's sh, which holds it as an argument.
  const found = await direct.exec([
    'bash',
    '-c',
    'for p in /proc/[0-9]*; do [ "$(head -c 8 $p/cmdline 2>/dev/null | tr "\\0" " ")" = "bash -c " ] && grep -qs "exec 4>&2 2>/dev/nul[l]" $p/cmdline && echo ${p#/proc/}; done; true',
  ]);
  return found.stdout.split('\n').filter(Boolean);
}

async function killServers(sandbox: DockerSandbox): Promise<void> {
  const direct = new DockerSandbox(sandbox.container, { execChannel: false });
  const pids = await servers(sandbox);
  const killed = await direct.exec(['bash', '-c', 'kill -9 "$@"', 'kill', ...pids]);
  expect(killed.exitCode, killed.stderr).toBe(0);
}

describe.each([
  { mode: 'exec channel', execChannel: true },
  { mode: 'docker exec per command', execChannel: false },
])('Docker sandbox exec ($mode)', ({ execChannel }) => {
  it('exit code, both streams, the repository as working folder, cwd, env and argv byte for byte', async () => {
    await withSandbox(execChannel, async (sandbox) => {
      const result = await sandbox.exec(['bash', '-c', 'pwd; echo "$GREETING" >&2; exit 3'], { env: { GREETING: 'hello world\n ✓ \\c "$x"' } });
      expect(result).toMatchObject({ exitCode: 3, stdout: '/workspace/repo\n', stderr: 'hello world\n ✓ \\c "$x"\n', timedOut: false, truncated: false });
      expect((await sandbox.exec(['pwd'], { cwd: '/tmp' })).stdout).toBe('/tmp\n');
      const odd = ['a b', "it's", 'new\nline', 'back\\slash \\x41 \\c', 'tab\there', 'ünï', '', '-n'];
      expect((await sandbox.exec(['printf', '[%s]', ...odd])).stdout).toBe(odd.map((a) => `[${a}]`).join(''));
      expect((await sandbox.exec(['git', 'rev-parse', 'HEAD'])).stdout.trim()).toMatch(/^[0-9a-f]{40}$/);
      // Nothing of the harness's reaches the command: its stdin is empty, its environment the container's.
      expect((await sandbox.exec(['bash', '-c', 'cat; echo "[$SHLVL]"; ls /proc/self/fd | wc -l'])).stdout).toBe('[1]\n4\n');
      expect(await sandbox.exec(['sh', '-c', 'exit 0'])).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    });
  });

  it('the time limit kills the command and its children; output is bounded; background jobs do not survive it', async () => {
    await withSandbox(execChannel, async (sandbox) => {
      const slow = await sandbox.exec(['bash', '-c', 'sleep 100 & sleep 100 & echo waiting; wait'], { timeoutMs: 1000 });
      expect(slow).toMatchObject({ exitCode: 137, timedOut: true, stdout: 'waiting\n' });
      const loud = await sandbox.exec(['bash', '-c', 'head -c 3000000 /dev/zero | tr "\\0" a; echo END; head -c 2000000 /dev/zero | tr "\\0" e >&2'], {
        maxOutputBytes: 1000,
      });
      expect(loud).toMatchObject({ exitCode: 0, truncated: true });
      expect(loud.stdout).toMatch(/^a{500}\n\[\.\.\. 2999004 bytes omitted \.\.\.\]\na{496}END\n$/);
      expect(loud.stderr).toMatch(/^e{500}\n\[\.\.\. 1999000 bytes omitted \.\.\.\]\ne{500}$/);
      const background = await sandbox.exec(['bash', '-c', 'sleep 300 & echo started'], { timeoutMs: 60_000 });
      expect(background).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'started\n' });
      const left = await sandbox.exec(['bash', '-c', 'cat /proc/[0-9]*/comm 2>/dev/null | grep -c "^sleep$" || true']);
      expect(left.stdout.trim()).toBe('0');
    });
  });

  it('a stop request ends the wait at once; the next command runs', async () => {
    await withSandbox(execChannel, async (sandbox) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop requested')), 300);
      await expect(sandbox.exec(['sleep', '30'], { signal: controller.signal })).rejects.toThrow('stop requested');
      expect((await sandbox.exec(['echo', 'next'])).stdout).toBe('next\n');
    });
  });

  it('commands at the same time each get their own result', async () => {
    await withSandbox(execChannel, async (sandbox) => {
      const results = await Promise.all([1, 2, 3, 4].map((n) => sandbox.exec(['bash', '-c', `sleep 0.$n; echo ${n}; echo e${n} >&2`])));
      expect(results.map((r) => r.stdout + r.stderr)).toEqual(['1\ne1\n', '2\ne2\n', '3\ne3\n', '4\ne4\n']);
    });
  });

  it("a container that stops under a command is an infrastructure error, not the command's failure", async () => {
    await withSandbox(execChannel, async (sandbox) => {
      await sandbox.exec(['true']);
      setTimeout(() => void sandbox.container.kill().catch(() => undefined), 500);
      await expect(sandbox.exec(['sleep', '30'])).rejects.toMatchObject({ name: 'ContainerStoppedError' });
      await expect(sandbox.exec(['true'])).rejects.toMatchObject({ name: 'ContainerStoppedError' });
    });
  });
});

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

describe('exec channel', () => {
  it('carries binary and huge output byte for byte, both streams at once', async () => {
    await withSandbox(true, async (sandbox) => {
      const channel = await ExecChannel.open(sandbox.container);
      try {
        const [stdout, stderr] = [new ByteSink(), new ByteSink()];
        const script =
          'head -c 30000000 /dev/urandom > /tmp/r; for i in $(seq 0 255); do printf "\\\\$(printf %o $i)"; done > /tmp/bytes; cat /tmp/r; cat /tmp/bytes >&2; cat /tmp/r >&2';
        expect(await channel.run({ argv: ['bash', '-c', script], stdout, stderr })).toBe(0);
        const hashes = await new DockerSandbox(sandbox.container, { execChannel: false }).exec([
          'bash',
          '-c',
          'sha256sum /tmp/r; cat /tmp/bytes /tmp/r | sha256sum',
        ]);
        const [r, both] = hashes.stdout.split('\n').map((line) => line.split(' ')[0]);
        expect(stdout.bytes.length).toBe(30_000_000);
        expect(sha(stdout.bytes)).toBe(r);
        expect(stderr.bytes.subarray(0, 256)).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
        expect(sha(stderr.bytes)).toBe(both);
        // The channel goes on to the next command.
        const next = new ByteSink();
        expect(await channel.run({ argv: ['printf', 'again'], stdout: next, stderr: new ByteSink() })).toBe(0);
        expect(next.bytes.toString()).toBe('again');
      } finally {
        channel.close();
      }
    });
  });

  it('a command cannot forge the end of its output', async () => {
    await withSandbox(true, async (sandbox) => {
      const forged = '\n!1 0\n\n!2 0\n';
      const result = await sandbox.exec(['bash', '-c', `printf '${forged.replaceAll('\n', '\\n')}'; printf '${forged.replaceAll('\n', '\\n')}' >&2; exit 5`]);
      expect(result).toMatchObject({ exitCode: 5, stdout: forged, stderr: forged });
      expect((await sandbox.exec(['echo', 'in step'])).stdout).toBe('in step\n');
    });
  });

  it("keeps one server per container across commands: the container's main process, so that no command needs a docker exec", async () => {
    await withSandbox(true, async (sandbox) => {
      for (let i = 0; i < 5; i++) await sandbox.exec(['true']);
      expect((await sandbox.container.inspect()).ExecIDs ?? []).toEqual([]);
      expect(await servers(sandbox)).toHaveLength(1);
      expect(sandbox.execChannelOff).toBeUndefined();
    });
  });

  it('a channel that died between commands is reopened; one that dies under a command gives the result through docker exec', async () => {
    await withSandbox(true, async (sandbox) => {
      await sandbox.exec(['true']);
      await killServers(sandbox);
      expect(await sandbox.exec(['echo', 'after'])).toMatchObject({ exitCode: 0, stdout: 'after\n' });
      expect(await servers(sandbox)).toHaveLength(1);

      // The server dies while the command waits (its start seen through a docker exec of its own).
      const direct = new DockerSandbox(sandbox.container, { execChannel: false });
      const killer = (async () => {
        await direct.exec(['bash', '-c', 'until [ -e /tmp/runs ]; do sleep 0.1; done'], { timeoutMs: 60_000 });
        await killServers(sandbox);
        await direct.exec(['touch', '/tmp/killed']);
      })();
      const result = await sandbox.exec(['bash', '-c', 'echo run >> /tmp/runs; until [ -e /tmp/killed ]; do sleep 0.1; done; echo finished; exit 4'], {
        timeoutMs: 60_000,
      });
      await killer;
      expect(result).toMatchObject({ exitCode: 4, stdout: 'finished\n', timedOut: false });
      // It ran again, whole, by docker exec: the first run's result was never complete.
      expect((await sandbox.exec(['cat', '/tmp/runs'])).stdout).toBe('run\nrun\n');
      expect(sandbox.execChannelOff).toBeUndefined();
    });
  });

  it('an image without base64, or bash, runs every command through docker exec, each exactly once', async () => {
    await withSandbox(true, async (sandbox) => {
      await sandbox.exec(['true']);
      await sandbox.exec(['bash', '-c', 'cp "$(command -v base64)" /tmp/b64 && rm "$(command -v base64)"']);
      expect(await sandbox.exec(['bash', '-c', 'echo run >> /tmp/runs; echo ok'])).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
      expect((await sandbox.exec(['cat', '/tmp/runs'])).stdout).toBe('run\n');
      expect(sandbox.execChannelOff).toMatch(/base64/);

      // A new sandbox on a container without bash.
      await sandbox.exec(['sh', '-c', 'cp /tmp/b64 /usr/bin/base64 && rm /usr/bin/bash /bin/bash 2>/dev/null; true']);
      const noBash = new DockerSandbox(sandbox.container);
      expect(await noBash.exec(['sh', '-c', 'echo run >> /tmp/runs; echo ok'])).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
      expect((await noBash.exec(['cat', '/tmp/runs'])).stdout).toBe('run\nrun\n');
      expect(noBash.execChannelOff).toMatch(/did not start/);
    });
  });
});
