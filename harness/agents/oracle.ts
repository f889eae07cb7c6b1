// The oracle applies gold patches through the same sandbox operations an agent's tools use:
// its own feature's patch in Coop, the pool's combined patch in Solo (Harbor's infrastructure check).
import { readFileSync } from 'node:fs';
import type { Agent, AgentContext, AgentOutcome } from './types.ts';
import { poolKey } from '../../tasks/types.ts';

const PATCH_PATH = '/tmp/oracle.patch';

export class OracleAgent implements Agent {
  readonly model = 'oracle';

  async run({ sandbox, pool, features, trajectory }: AgentContext): Promise<AgentOutcome> {
    const patchPath = features.length === 1 ? features[0].patchPath : pool.combinedPatchPath;
    if (!patchPath) return { status: 'error', error: `pool ${poolKey(pool)} has no combined.patch: the oracle cannot solve several features at once` };
    await sandbox.writeFile(PATCH_PATH, readFileSync(patchPath));
    trajectory.record({ kind: 'tool', name: 'write_file', input: { path: PATCH_PATH, from: patchPath } });
    const applied = await sandbox.exec(['git', 'apply', '--whitespace=nowarn', PATCH_PATH], { cwd: '/workspace/repo', timeoutMs: 120_000 });
    trajectory.record({ kind: 'tool', name: 'bash', input: `git apply ${PATCH_PATH}`, output: applied.stdout + applied.stderr, exitCode: applied.exitCode });
    await sandbox.exec(['rm', '-f', PATCH_PATH]);
    if (applied.exitCode !== 0) return { status: 'error', error: `gold patch does not apply: ${applied.stderr.trim().slice(0, 300)}` };
    return { status: 'finished' };
  }
}

/** Changes nothing: the floor every score is compared against. */
export class NoopAgent implements Agent {
  readonly model = 'noop';

  async run({ trajectory }: AgentContext): Promise<AgentOutcome> {
    trajectory.record({ kind: 'note', output: 'noop agent: no changes' });
    return { status: 'finished' };
  }
}
