// The oracle submits the gold patch: its own feature's patch in Coop, the pool's combined patch in
// Solo (Harbor's infrastructure check), test files dropped as the merge drops an agent's. Its patch
// needs no container: it is applied to the base repository on this machine and taken as `git diff`
// against the base, as a container yields it. `--oracle-in-container` applies it through the same
// sandbox operations an agent's tools use instead, to check the agent machinery.
import { readFileSync } from 'node:fs';
import type { Agent, AgentContext, AgentOutcome, HostPatchContext, HostPatchResult } from './types.ts';
import { PoolDefectError } from './types.ts';
import { poolKey, type Feature, type Pool } from '../../tasks/types.ts';
import { applyToBase, dropTestFiles } from '../../resolver/index.ts';

const PATCH_PATH = '/tmp/oracle.patch';

interface GoldPatch {
  /** `feature2/feature.patch`, `combined.patch`. */
  name: string;
  /** Its file. */
  path: string;
  patch: string;
  /** Test files dropped from it. */
  dropped: string[];
}

/** The patch the oracle submits for these features; a pool without one is a pool defect. */
export function goldPatch(pool: Pool, features: Feature[]): GoldPatch {
  const [only] = features;
  const [name, path] = features.length === 1 && only ? [`feature${only.id}/feature.patch`, only.patchPath] : ['combined.patch', pool.combinedPatchPath];
  if (!path)
    throw new PoolDefectError(
      `pool ${poolKey(pool)} has no combined.patch: the oracle cannot solve features ${features.map((f) => f.id).join(', ')} at once (coop-bench pools validate)`,
    );
  return { name, path, ...dropTestFiles(readFileSync(path, 'utf8')) };
}

function doesNotApply(pool: Pool, features: Feature[], gold: GoldPatch, reason: string): PoolDefectError {
  const which = features.length === 1 ? `feature ${features[0]!.id}` : `features ${features.map((f) => f.id).join(', ')}`;
  return new PoolDefectError(
    `pool ${poolKey(pool)}: gold patch ${gold.name} (${which}, ${gold.path}) does not apply to the base repository: ${reason} (fix the pool; coop-bench pools validate ${pool.dir} checks every gold patch)`,
  );
}

function describe(gold: GoldPatch): string {
  return `gold patch ${gold.name}${gold.dropped.length ? ` without its test files (${gold.dropped.join(', ')})` : ''}`;
}

export class OracleAgent implements Agent {
  readonly model = 'oracle';

  async patchOnHost({ pool, features, base, trajectory }: HostPatchContext): Promise<HostPatchResult> {
    const gold = goldPatch(pool, features);
    const applied = await applyToBase({ repoDir: base.dir, baseRev: base.rev, patch: gold.patch });
    if ('error' in applied) throw doesNotApply(pool, features, gold, applied.error);
    trajectory.record({
      kind: 'note',
      output: `oracle without an agent container: ${describe(gold)} applied to the base repository ${base.rev.slice(0, 12)} on the harness machine (git apply --cached, then git diff --binary against the base, as a container gives it); --oracle-in-container applies it in one`,
    });
    return { status: 'finished', patch: applied.patch };
  }

  async run({ sandbox, pool, features, trajectory }: AgentContext): Promise<AgentOutcome> {
    const gold = goldPatch(pool, features);
    await sandbox.writeFile(PATCH_PATH, gold.patch);
    trajectory.record({ kind: 'tool', name: 'write_file', input: { path: PATCH_PATH, from: describe(gold) } });
    const applied = await sandbox.exec(['git', 'apply', '--whitespace=nowarn', PATCH_PATH], { cwd: '/workspace/repo', timeoutMs: 120_000 });
    trajectory.record({ kind: 'tool', name: 'bash', input: `git apply ${PATCH_PATH}`, output: applied.stdout + applied.stderr, exitCode: applied.exitCode });
    await sandbox.exec(['rm', '-f', PATCH_PATH]);
    if (applied.exitCode !== 0) throw doesNotApply(pool, features, gold, (applied.stderr.trim().split('\n')[0] ?? '').slice(0, 300));
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
