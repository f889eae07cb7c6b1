// Connections to Docker engines: the local one (DOCKER_HOST or the default socket) and, for runs
// spread over several machines, any engine named by a unix://, tcp:// or ssh:// address.
import Docker from 'dockerode';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, errorMessage } from '../errors.ts';

export const SETUP_HINT = 'run `bash scripts/setup-docker.sh` (installs docker.io, starts dockerd, seeds debian:bookworm-slim) or set DOCKER_HOST';

/** One Docker engine: the address the user gave (how results name it) and its client. */
export interface Engine {
  readonly host: string;
  readonly docker: Docker;
}

/** The engine of DOCKER_HOST, or of the local socket: what one-machine runs use. */
export const LOCAL_HOST = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';

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
    return { protocol: 'ssh', host: url.hostname, port: url.port || 22, username: decodeURIComponent(url.username) || undefined, sshOptions: { agent: process.env.SSH_AUTH_SOCK } };
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
    ...(tls && certs ? { ca: readFileSync(join(certs, 'ca.pem')), cert: readFileSync(join(certs, 'cert.pem')), key: readFileSync(join(certs, 'key.pem')) } : {}),
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

/** Fails with a UserError saying how to get an engine when one does not answer. */
export async function requireEngine(engine: Engine = engineAt()): Promise<Engine> {
  try {
    await engine.docker.ping();
    return engine;
  } catch (error) {
    const hint = engine.host === LOCAL_HOST ? SETUP_HINT : 'check the address, that dockerd listens there and that this machine may reach it';
    throw new UserError(`no Docker engine reachable at ${engine.host} (${errorMessage(error).split('\n')[0]}): ${hint}`);
  }
}

/** Addresses from a hosts file: one per line; blank lines and `#` comments are skipped. */
export function readHostsFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read the hosts file ${path}: ${errorMessage(error)}`);
  }
  return text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter(Boolean);
}
