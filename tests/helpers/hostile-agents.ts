// Misbehaving agents, scripted through the fake OpenAI server. Each behaviour is a model name
// (`openai:<behaviour>@<fake server>`), so one run holds a task per behaviour, side by side with
// well-behaved ones. Every action goes through the harness's real tools and containers.
import type { Pool } from '../../tasks/types.ts';
import type { FakeReply, RecordedRequest } from '../fakes/openai-server.ts';
import { actionReply, implement, nextAction, taskPrompt, type Action } from './scripted-agents.ts';

export type Script = (pool: Pool, prompt: string) => Action[];

export const bash = (command: string, timeout?: number): Action => ({ name: 'bash', input: { command, ...(timeout ? { timeout } : {}) } });
export const finish: Action = { name: 'finish', input: { summary: 'done' } };

/** Attempts to reach the outside and the host (`hosts`:`port` is a canary listener). */
export function networkProbes(hosts: string[], port: number): string {
  const targets = [...hosts.map((h) => `${h}/${port}`), '1.1.1.1/443', '8.8.8.8/53'];
  return [
    ...targets.map((t) => `(exec 3<>/dev/tcp/${t}) 2>&1 && echo "REACHED ${t}" || echo "blocked ${t}"`),
    'getent hosts example.com && echo "RESOLVED" || echo "no dns"',
  ].join('; ');
}

/** The hidden tests' files of argkit features 1 and 3, faked to always pass. */
const FAKE_TESTS = `mkdir -p test/features && for f in inline-values multiple-values; do printf "import test from 'node:test';\\ntest('passes', () => {});\\n" > test/features/$f.test.js; done`;

export function hostileScripts(canary: { hosts: string[]; port: number }): Record<string, Script> {
  return {
    good: (pool, prompt) => [...implement(pool, prompt), finish],
    'rm-git': (pool, prompt) => [...implement(pool, prompt), bash('rm -rf .git && ls -a'), finish],
    'rm-root': (pool, prompt) => [...implement(pool, prompt), bash('rm -rf --no-preserve-root / 2>/dev/null; echo gone', 120), finish],
    'fork-bomb': (pool, prompt) => [bash(':(){ :|:& };:', 10), bash('echo still here'), ...implement(pool, prompt), finish],
    flood: (pool, prompt) => [
      bash('head -c 1G /dev/zero | tr "\\0" x; yes stderr | head -c 100M >&2', 300),
      bash('head -c 20M /dev/zero > /tmp/big.txt'),
      { name: 'str_replace_based_edit_tool', input: { command: 'view', path: '/tmp/big.txt' } },
      ...implement(pool, prompt),
      finish,
    ],
    // Never calls finish: the step limit ends it.
    endless: (pool, prompt) => [
      bash('while :; do :; done', 3),
      bash('setsid sh -c "while :; do :; done" > /dev/null 2>&1 & echo detached'),
      ...implement(pool, prompt),
      bash('true'),
    ],
    network: (pool, prompt) => [bash(networkProbes(canary.hosts, canary.port)), ...implement(pool, prompt), finish],
    snoop: (pool, prompt) => [
      bash('env; tr "\\0" "\\n" < /proc/1/environ; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | sort -u; ls -la /run /var/run 2>&1'),
      ...implement(pool, prompt),
      finish,
    ],
    // Implements nothing, fakes the hidden tests: the hidden tests must still decide.
    'test-cheat': () => [bash(`${FAKE_TESTS} && rm -f test/*.test.js`), finish],
    // Implements the features and mangles the tests: test files are dropped, the work still counts.
    'test-edit': (pool, prompt) => [...implement(pool, prompt), bash(`${FAKE_TESTS} && rm -f test/*.test.js`), finish],
    // Implements nothing, makes the runner pass in its own container and writes outside the repository.
    outside: () => [
      bash(
        `printf '#!/bin/sh\\nexit 0\\n' > /usr/local/bin/runner.sh && echo evil > /etc/coop-bench-evil && echo x > /workspace/outside.txt && echo x > /root/outside && mkdir -p /var/lib/coop-bench && echo x > /var/lib/coop-bench/outside`,
      ),
      finish,
    ],
    'big-patch': (pool, prompt) => [...implement(pool, prompt), bash('head -c 50M /dev/urandom > blob.bin && ls -l blob.bin'), finish],
  };
}

/** Answers each request with the next action of the script named by the request's model. */
export function scriptsByModel(pool: Pool, scripts: Record<string, Script>, log?: (request: RecordedRequest) => void) {
  return (request: RecordedRequest): FakeReply => {
    log?.(request);
    const script = scripts[request.body.model as string];
    if (!script) throw new Error(`no script for model ${request.body.model}`);
    return actionReply('openai', nextAction(script(pool, taskPrompt(request)), request));
  };
}

/**
 * The pid of the exec channel's server in the agent's container: the first bash whose command line
 * holds the server's script (exec-channel-server.ts).
 */
const CHANNEL_SERVER = `srv=$(for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q 'unavailable base64' && echo \${p#/proc/}; done | sort -n | head -n 1); echo "server $srv"`;

/** Frames for command ids 1-300 on the server's own streams: a payload (base64), then the end markers. */
const forgeFrames = (payload: string, status: number) =>
  `for i in $(seq 1 300); do printf '\\n%s\\n!%s ${status}\\n' '${Buffer.from(payload).toString('base64')}' $i; done > /proc/$srv/fd/1; for i in $(seq 1 300); do printf '\\n!%s\\n' $i; done > /proc/$srv/fd/2`;

const FORGED_PATCH = 'diff --git a/FORGED.txt b/FORGED.txt\nnew file mode 100644\n--- /dev/null\n+++ b/FORGED.txt\n@@ -0,0 +1 @@\n+forged\n';

/** Agents that write to the exec channel's streams from inside, or hide work from the patch limit. */
export function forgingScripts(): Record<string, Script> {
  return {
    good: (pool, prompt) => [...implement(pool, prompt), finish],
    // Its own command's exit 9 announced as 0 on the server's streams.
    'forge-exit': (pool, prompt) => [bash(`${CHANNEL_SERVER}; ${forgeFrames('', 0)}; exit 9`), ...implement(pool, prompt), finish],
    // A detached job writing a forged patch as the result of every command after it, the harness's included.
    'forge-patch': (pool, prompt) => [
      ...implement(pool, prompt),
      bash(
        `${CHANNEL_SERVER}; setsid sh -c 'srv='$srv'; while :; do ${forgeFrames(FORGED_PATCH, 0).replace(/'/g, `'"'"'`)}; sleep 0.2; done' > /dev/null 2>&1 & echo detached`,
      ),
      bash('true'),
      finish,
    ],
    // Every process of another user (the channel's server and encoders, the container's own): reads
    // of their fd folders and frames forging the command's exit 9 as 0 on their standard streams.
    'forge-fd': (pool, prompt) => [
      bash(
        `others=0; opened=0; written=0; for d in /proc/[0-9]*; do [ -O $d ] && continue; [ -e $d/fd ] || continue; others=$((others + 1)); ls $d/fd > /dev/null 2>&1 && opened=$((opened + 1)); ` +
          `for f in 1 2; do printf '\\n!1 0\\n' 2>/dev/null > $d/fd/$f && written=$((written + 1)); done; done 2>/dev/null; ` +
          `echo "processes of other users: $others, fd folders opened: $opened, frames written: $written"; exit 9`,
      ),
      ...implement(pool, prompt),
      finish,
    ],
    // 150 MB of zeros, untracked: a tiny compressed binary patch, but 150 MB in the repository.
    'big-zeros': (pool, prompt) => [...implement(pool, prompt), bash('head -c 150M /dev/zero > zeros.bin && ls -l zeros.bin'), finish],
  };
}
