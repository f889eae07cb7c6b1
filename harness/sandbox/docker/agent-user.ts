// The unprivileged user an agent's commands run as in its container. The exec channel's server
// (exec-channel-server.ts), the container's main process and the harness's own commands (the base
// snapshot, stopping processes, taking the patch) stay root: a process of another user can neither
// open their /proc/<pid>/fd nor signal them (ptrace access mode checks, kill(2)), so nothing an agent
// runs can write frames on the channel's streams, and `kill -9 -1` stops only the agent's own.
// The agent owns its repository and its home; the rest of the image is as readable as for any
// non-root user (pip falls back to a user install in the home).
import { WORKSPACE } from '../../../tasks/prompts.ts';

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
 * Run as root when the container starts: entries in /etc/passwd and /etc/group (git, getpass and
 * whoami look the user up; an image's own user of that uid is kept), the home, and the repository
 * handed to the user. On overlay storage, the chown copies the repository's files up into the
 * container's writable layer (counted by --disk).
 */
export function agentUserSetup(user: AgentUser): string {
  return `set -e
grep -q '^[^:]*:[^:]*:${user.gid}:' /etc/group || echo '${user.name}:x:${user.gid}:' >> /etc/group
grep -q '^[^:]*:[^:]*:${user.uid}:' /etc/passwd || echo '${user.name}:x:${user.uid}:${user.gid}:coop-bench agent:${user.home}:/bin/sh' >> /etc/passwd
mkdir -p ${user.home}
chown ${userSpec(user)} ${user.home}
if [ -d ${WORKSPACE} ]; then chown -R ${userSpec(user)} ${WORKSPACE}; fi`;
}
