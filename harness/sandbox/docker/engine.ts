// Connections to Docker engines: the local one (DOCKER_HOST or the default socket) and, for runs
// spread over several machines, any engine named by a unix://, tcp:// or ssh:// address. Also the
// one-line answer when no engine answers, and how to tell the engine's errors (infrastructure)
// from everything else.
import Docker from 'dockerode';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { UserError, errorMessage } from '../../errors.ts';
import { SandboxStoppedError } from '../errors.ts';

const SETUP = '`bash scripts/setup-docker.sh` (as root: installs docker.io, starts dockerd, seeds debian:bookworm-slim)';

/** One Docker engine: the address the user gave (how results name it) and its client. */
export interface Engine {
  readonly host: string;
  readonly docker: Docker;
}

export function engineAddress(env: NodeJS.ProcessEnv = process.env): string {
  return env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

/** The engine of DOCKER_HOST, or of the local socket: what one-machine runs use. */
export const LOCAL_HOST = engineAddress();

/**
 * dockerode options for an address as the docker CLI accepts it. tcp:// uses TLS when
 * DOCKER_TLS_VERIFY=1 or the port is 2376 (certificates from DOCKER_CERT_PATH, as the CLI does);
 * ssh:// runs `docker system dial-stdio` on the remote machine through the SSH agent.
 */
export function dockerOptions(host: string): Docker.DockerOptions {
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw new UserError(`Docker host "${host}" is not an address: use unix:///path/to/docker.sock, tcp://host:2375, tcp://host:2376 (TLS) or ssh://user@host`);
  }
  if (url.protocol === 'ssh:') {
    return {
      protocol: 'ssh',
      host: url.hostname,
      port: url.port || 22,
      username: decodeURIComponent(url.username) || undefined,
      sshOptions: { agent: process.env.SSH_AUTH_SOCK },
    };
  }
  if (url.protocol !== 'tcp:' && url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`Docker host "${host}": unsupported scheme ${url.protocol} (use unix://, tcp:// or ssh://)`);
  }
  const tls = url.protocol === 'https:' || process.env.DOCKER_TLS_VERIFY === '1' || url.port === '2376';
  const certs = process.env.DOCKER_CERT_PATH;
  return {
    protocol: tls ? 'https' : 'http',
    host: url.hostname,
    port: url.port || (tls ? 2376 : 2375),
    ...(tls && certs
      ? { ca: readFileSync(join(certs, 'ca.pem')), cert: readFileSync(join(certs, 'cert.pem')), key: readFileSync(join(certs, 'key.pem')) }
      : {}),
  };
}

const engines = new Map<string, Engine>();

/** The engine at `host` (one client per address for the whole process). */
export function engineAt(host: string = LOCAL_HOST): Engine {
  let engine = engines.get(host);
  if (!engine) {
    // The local engine keeps dockerode's own reading of DOCKER_HOST and its certificates.
    const docker = host === LOCAL_HOST ? new Docker() : new Docker(dockerOptions(host));
    engines.set(host, (engine = { host, docker }));
  }
  return engine;
}

/** The engines of a run: the given addresses (duplicates dropped), or the local engine. */
export function enginesAt(hosts: readonly string[] = []): Engine[] {
  return hosts.length === 0 ? [engineAt()] : [...new Set(hosts)].map((host) => engineAt(host));
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)));
}

/** One line: where the local engine did not answer, why, and exactly what to do about it. */
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

/** Fails with a UserError saying how to get an engine when one does not answer. */
export async function requireEngine(engine: Engine = engineAt()): Promise<Engine> {
  try {
    await engine.docker.ping();
    return engine;
  } catch (error) {
    if (engine.host === LOCAL_HOST) throw new UserError(diagnoseEngine(error));
    throw new UserError(
      `no Docker engine reachable at ${engine.host} (${errorMessage(error).split('\n')[0]}): check the address, that dockerd listens there and that this machine may reach it`,
    );
  }
}

/** The container a command was to run in no longer runs (killed, out of memory, stopped from inside). */
export class ContainerStoppedError extends SandboxStoppedError {
  constructor(how: string, options?: { byItsProcesses?: boolean }) {
    super(`container stopped (${how})`, how, options);
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

/**
 * The end of an engine's progress stream (build, push, load): the engine has done the work when its
 * answer ends, not when it starts, and reports a failure as an event in it. Rejects with the first.
 */
export function progressEnd<Event extends { error?: string }>(engine: Engine, stream: NodeJS.ReadableStream, onEvent?: (event: Event) => void): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    engine.docker.modem.followProgress(
      stream,
      (error: Error | null, events: Event[]) => {
        const failure = error?.message ?? events.find((e) => e.error)?.error;
        if (failure) reject(new Error(failure.trim()));
        else resolve();
      },
      onEvent,
    ),
  );
}
