// A shell on a pseudo-terminal in an agent's container, by `docker exec` with a TTY: the person's
// seat of `coop-bench play` works through it. With a TTY the stream is raw (not multiplexed), and
// everything typed goes to the shell in the container, nowhere else.
import type Docker from 'dockerode';
import type { Duplex } from 'node:stream';
import type { Terminal } from '../types.ts';

/** bash where the image has it, else sh; both started as login shells in the repository. */
const SHELL = ['sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi'];

/** `user`: `uid:gid` the shell runs as (default: the image's user). */
export async function openDockerTerminal(container: Docker.Container, size: { cols: number; rows: number }, user?: string): Promise<Terminal> {
  const exec = await container.exec({
    Cmd: SHELL,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    WorkingDir: '/workspace/repo',
    Env: ['TERM=xterm-256color'],
    ...(user && { User: user }),
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as Duplex;
  const closed = new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  const resize = async (cols: number, rows: number) => {
    // The engine refuses a resize of an exec that has ended: nothing to resize then.
    await exec.resize({ w: cols, h: rows }).catch(() => undefined);
  };
  await resize(size.cols, size.rows);
  return {
    write: (data) => {
      if (!stream.destroyed) stream.write(data);
    },
    resize,
    onData: (listener) => {
      stream.on('data', listener);
      return () => stream.off('data', listener);
    },
    closed,
    close: () => stream.destroy(),
  };
}
