// The credentials `docker push` would use for a registry, read as the Docker CLI reads them from its
// config file (https://docs.docker.com/reference/cli/docker/login/#credential-stores): a helper
// named for the registry in `credHelpers`, else the `credsStore` every login goes to (Docker
// Desktop's `desktop`, `osxkeychain`, `pass`...), else the inline `auths` entry. A helper is the
// program `docker-credential-<name>`, asked `get` with the registry's host on stdin; it answers
// `{"ServerURL","Username","Secret"}`, the username `<token>` meaning the secret is an identity token.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { UserError, boundText } from '../../errors.ts';

export interface DockerConfig {
  auths?: Record<string, { auth?: string; identitytoken?: string }>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

/** What the engine's push takes (the API's X-Registry-Auth). */
export type AuthConfig = { serveraddress: string } & ({ auth: string } | { username: string; password: string } | { identitytoken: string });

/** How long a helper may take (gcloud and ECR helpers call out to their provider). */
const HELPER_TIMEOUT_MS = 60_000;
/** A helper's answer when it holds nothing for the registry (docker-credential-helpers' ErrCredentialsNotFound). */
const NOT_FOUND = /credentials not found/i;

export function readDockerConfig(env: NodeJS.ProcessEnv = process.env): DockerConfig {
  const path = join(env.DOCKER_CONFIG ?? join(homedir(), '.docker'), 'config.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  try {
    return JSON.parse(text) as DockerConfig;
  } catch (error) {
    throw new UserError(`cannot read ${path}: ${(error as Error).message} (fix the file, or log in again with \`docker login\`)`);
  }
}

/** The credentials for `registry` (host[:port][/path]); undefined when none are stored (an anonymous push). */
export async function registryAuth(registry: string, config: DockerConfig = readDockerConfig()): Promise<AuthConfig | undefined> {
  const host = registry.split('/')[0]!;
  const helper = config.credHelpers?.[host] ?? config.credsStore;
  if (helper) return fromHelper(helper, host);
  const entry = config.auths?.[host];
  if (entry?.identitytoken) return { identitytoken: entry.identitytoken, serveraddress: host };
  return entry?.auth ? { auth: entry.auth, serveraddress: host } : undefined;
}

async function fromHelper(helper: string, host: string): Promise<AuthConfig | undefined> {
  if (!/^[A-Za-z0-9._-]+$/.test(helper))
    throw new UserError(`the Docker config names the credential helper ${JSON.stringify(helper)}, which is not a helper name`);
  const program = `docker-credential-${helper}`;
  const result = await execa(program, ['get'], { input: host, timeout: HELPER_TIMEOUT_MS, reject: false, maxBuffer: 1024 * 1024 });
  const said = boundText((result.stderr || result.stdout || '').trim(), 500);
  if (result.exitCode !== 0) {
    if (NOT_FOUND.test(said)) return undefined;
    const why =
      result.failed && result.exitCode === undefined
        ? result.timedOut
          ? `no answer in ${HELPER_TIMEOUT_MS / 1000} s`
          : 'not found on PATH'
        : `exit ${result.exitCode}: ${said}`;
    throw new UserError(`the credential helper ${program} (from the Docker config) failed for ${host}: ${why} (log in again with \`docker login ${host}\`)`);
  }
  let answer: { Username?: string; Secret?: string };
  try {
    answer = JSON.parse(result.stdout) as { Username?: string; Secret?: string };
  } catch {
    throw new UserError(`the credential helper ${program} answered something that is not JSON for ${host}`);
  }
  if (!answer.Secret) return undefined;
  if (answer.Username === '<token>') return { identitytoken: answer.Secret, serveraddress: host };
  return { username: answer.Username ?? '', password: answer.Secret, serveraddress: host };
}
