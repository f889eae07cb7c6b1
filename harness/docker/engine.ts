// Connection to the Docker engine, the one-line answer when there is none, and how to tell the
// engine's errors (infrastructure) from everything else.
import Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { UserError, errorMessage } from '../errors.ts';

const SETUP = '`bash scripts/setup-docker.sh` (as root: installs docker.io, starts dockerd, seeds debian:bookworm-slim)';

let shared: Docker | undefined;

/** The engine named by DOCKER_HOST, or the local socket. */
export function docker(): Docker {
  shared ??= new Docker();
  return shared;
}

export function engineAddress(env: NodeJS.ProcessEnv = process.env): string {
  return env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)));
}

/** One line: where no engine answered, why, and exactly what to do about it. */
export function diagnoseEngine(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const code = (error as { code?: string }).code;
  const problem = `no Docker engine reachable at ${engineAddress(env)} (${errorMessage(error).split('\n')[0]})`;
  if (code === 'EACCES' || code === 'EPERM') {
    return `${problem}: permission denied on the engine's socket: run as root, or add your user to the docker group (sudo usermod -aG docker $USER, then log in again)`;
  }
  if (env.DOCKER_HOST) {
    return `${problem}: DOCKER_HOST names no running engine: unset DOCKER_HOST to use the local one, or point it at a running engine; to install and start a local engine run ${SETUP}`;
  }
  if (!onPath('dockerd', env)) return `${problem}: Docker is not installed: run ${SETUP}`;
  return `${problem}: dockerd is installed but not running: run ${SETUP}, or start dockerd yourself`;
}

/** Fails with a UserError saying how to get an engine when none answers. */
export async function requireEngine(engine: Docker = docker()): Promise<Docker> {
  try {
    await engine.ping();
    return engine;
  } catch (error) {
    throw new UserError(diagnoseEngine(error));
  }
}

/** The container a command was to run in no longer runs (killed, out of memory, stopped from inside). */
export class ContainerStoppedError extends Error {
  constructor(readonly how: string) {
    super(`container stopped (${how})`);
    this.name = 'ContainerStoppedError';
  }
}

const LOST_CONNECTION = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT']);

/**
 * An error of the Docker engine (an HTTP status from its API, a lost connection to it, a container
 * that stopped): it says nothing about an agent's work, so a task that meets one is an error, run
 * again on resume.
 */
export function isEngineError(error: unknown): boolean {
  if (error instanceof ContainerStoppedError) return true;
  if (!(error instanceof Error)) return false;
  const { statusCode, code, syscall } = error as Error & { statusCode?: number; code?: string; syscall?: string };
  return statusCode !== undefined || (syscall === 'connect' && LOST_CONNECTION.has(code ?? '')) || code === 'ECONNRESET' || code === 'EPIPE';
}
