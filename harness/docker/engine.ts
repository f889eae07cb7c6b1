// Connection to the Docker engine, and the one-line answer when there is none.
import Docker from 'dockerode';
import { UserError, errorMessage } from '../errors.ts';

export const SETUP_HINT = 'run `bash scripts/setup-docker.sh` (installs docker.io, starts dockerd, seeds debian:bookworm-slim) or set DOCKER_HOST';

let shared: Docker | undefined;

/** The engine named by DOCKER_HOST, or the local socket. */
export function docker(): Docker {
  shared ??= new Docker();
  return shared;
}

/** Fails with a UserError saying how to get an engine when none answers. */
export async function requireEngine(engine: Docker = docker()): Promise<Docker> {
  try {
    await engine.ping();
    return engine;
  } catch (error) {
    const where = process.env.DOCKER_HOST ?? '/var/run/docker.sock';
    throw new UserError(`no Docker engine reachable at ${where} (${errorMessage(error).split('\n')[0]}): ${SETUP_HINT}`);
  }
}
