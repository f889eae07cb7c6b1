// The unprivileged user an agent's commands run as in its container. The exec channel's server
// (exec-channel-server.ts), the container's main process and the harness's own commands (the base
// snapshot, stopping processes, taking the patch) stay root: a process of another user can neither
// open their /proc/<pid>/fd nor signal them (ptrace access mode checks, kill(2)), so nothing an agent
// runs can write frames on the channel's streams, and `kill -9 -1` stops only the agent's own.
// The agent owns its repository and its home; the rest of the image is as readable as for any
// non-root user (pip falls back to a user install in the home). The user is set up once per pool
// image, in a layer of its own (agentImage), not in each agent container.
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { pack as tarPack } from 'tar-stream';
import { WORKSPACE } from '../../../tasks/prompts.ts';
import { progressEnd, type Engine } from './engine.ts';
import { imageId } from './images.ts';
import { boundText } from '../../errors.ts';

export interface AgentUser {
  uid: number;
  gid: number;
  name: string;
  home: string;
}

/** A uid no common base image uses (they start users at 1000, system users below 1000). */
export const AGENT_USER: AgentUser = { uid: 1717, gid: 1717, name: 'coop-agent', home: '/home/coop-agent' };

/** `uid:gid`, as `docker exec --user` and `chroot --userspec` take it. */
export const userSpec = (user: AgentUser) => `${user.uid}:${user.gid}`;

/**
 * Run as the image's user (root) on top of the pool image: entries in /etc/passwd and /etc/group
 * (git, getpass and whoami look the user up; an image's own user of that uid is kept), the home, and
 * the repository handed to the user.
 */
function agentUserSetup(user: AgentUser): string {
  return `set -e
grep -q '^[^:]*:[^:]*:${user.gid}:' /etc/group || echo '${user.name}:x:${user.gid}:' >> /etc/group
grep -q '^[^:]*:[^:]*:${user.uid}:' /etc/passwd || echo '${user.name}:x:${user.uid}:${user.gid}:coop-bench agent:${user.home}:/bin/sh' >> /etc/passwd
mkdir -p ${user.home}
chown ${userSpec(user)} ${user.home}
if [ -d ${WORKSPACE} ]; then chown -R ${userSpec(user)} ${WORKSPACE}; fi`;
}

/** The name of a pool image's agent image: the pool image's id and the setup's hash decide it. */
export function agentImageName(poolImageId: string, user: AgentUser): string {
  const setup = createHash('sha256').update(agentUserSetup(user)).digest('hex').slice(0, 12);
  return `coop-bench/agent-user:${poolImageId.replace(/^sha256:/, '').slice(0, 12)}-${setup}`;
}

const pending = new Map<string, Promise<string>>();

/**
 * The id of the pool image with the agent's user set up in a layer of its own, built once per pool
 * image and engine (kept under agentImageName, so later runs find it). Agent containers start from
 * it: on overlay storage a chown in each container would copy every file of the repository up into
 * its writable layer, at each start; here the layer is written once and shared.
 */
export function agentImage(engine: Engine, poolImageId: string, user: AgentUser, log: (line: string) => void): Promise<string> {
  const name = agentImageName(poolImageId, user);
  const key = `${engine.host}|${name}`;
  let result = pending.get(key);
  if (!result) {
    result = imageId(engine, name).then((id) => id ?? buildAgentImage(engine, poolImageId, user, name, log));
    pending.set(key, result);
    result.catch(() => pending.delete(key));
  }
  return result;
}

async function buildAgentImage(engine: Engine, poolImageId: string, user: AgentUser, name: string, log: (line: string) => void): Promise<string> {
  log(`preparing the agent's user (uid ${user.uid}) in an image layer on ${engine.host}: ${name}`);
  // The exec form: the script goes to sh as one argument, whatever SHELL the pool image sets.
  const dockerfile = `FROM ${poolImageId}\nRUN ${JSON.stringify(['sh', '-c', agentUserSetup(user)])}\n`;
  const archive = tarPack();
  archive.entry({ name: 'Dockerfile' }, dockerfile);
  archive.finalize();
  const stream = await engine.docker.buildImage(archive.pipe(new PassThrough()), {
    t: name,
    labels: { 'coop-bench': 'true' },
    rm: true,
    forcerm: true,
    networkmode: 'none',
  });
  const output: string[] = [];
  await progressEnd<{ error?: string; stream?: string }>(engine, stream, (event) => {
    if (event.stream) output.push(event.stream);
  }).catch((failure: Error) => {
    throw new Error(`setting up the agent's user (uid ${user.uid}) on image ${poolImageId} failed: ${failure.message}\n${boundText(output.join(''), 4000)}`);
  });
  const id = await imageId(engine, name);
  if (!id) throw new Error(`the agent's image ${name} was built but ${engine.host} does not list it`);
  return id;
}
