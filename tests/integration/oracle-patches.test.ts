// The oracle without agent containers gives the patch the oracle in a real agent container gives,
// byte for byte, on every feature and combined.patch of the shipped pools; a gold patch that does
// not apply is a pool defect either way, named in one line.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPools } from '../../tasks/pools.ts';
import { poolKey, type Feature, type Pool } from '../../tasks/types.ts';
import { createBackend } from '../../harness/sandbox/registry.ts';
import { DEFAULT_LIMITS, type BackendSlot, type BaseRepo, type SandboxImage } from '../../harness/sandbox/types.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { OracleAgent } from '../../harness/agents/oracle.ts';
import { PoolDefectError } from '../../harness/agents/types.ts';
import { Trajectory } from '../../harness/agents/trajectory.ts';
import { diffAgainstBase, snapshotBase } from '../../harness/run/workspace.ts';
import { uniqueRun } from '../helpers/run-db.ts';

const run = uniqueRun('oracle-patches');
const scratch = mkdtempSync(join(tmpdir(), 'oracle-patches-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function inContainer(slot: BackendSlot, image: SandboxImage, pool: Pool, features: Feature[]): Promise<string> {
  const sandbox = await slot.startAgentSandbox({ image, run, task: 0, agent: 'agent1', limits: DEFAULT_LIMITS });
  try {
    const base = await snapshotBase(sandbox);
    const trajectory = new Trajectory();
    const context = {
      agentId: 'agent1',
      sandbox,
      pool,
      features,
      partners: [],
      trajectory,
      signal: new AbortController().signal,
      isInfrastructureError: () => false,
    };
    expect(await new OracleAgent().run(context)).toEqual({ status: 'finished' });
    return await diffAgainstBase(sandbox, base);
  } finally {
    await sandbox.remove();
  }
}

const onHost = (pool: Pool, features: Feature[], base: BaseRepo) =>
  new OracleAgent().patchOnHost({ agentId: 'agent1', pool, features, base, trajectory: new Trajectory() });

describe.each(discoverPools(SHIPPED_POOLS).map((pool) => [poolKey(pool), pool] as const))('the oracle on %s', (_, pool) => {
  it('gives the same patch without a container as in one, byte for byte, for every feature and combined.patch', async () => {
    const slot = (await createBackend('docker', { log: () => undefined })).acquire();
    const image = await slot.prepareImage(pool, run, () => undefined);
    const base = await slot.baseRepo(image, run);
    const cases = [...pool.features.map((f) => [f]), pool.features];
    const [direct, contained] = await Promise.all([
      Promise.all(cases.map((features) => onHost(pool, features, base))),
      // One container at a time: the machine is shared.
      cases.reduce<Promise<string[]>>(async (done, features) => [...(await done), await inContainer(slot, image, pool, features)], Promise.resolve([])),
    ]);
    expect(direct.map((d) => d.status)).toEqual(cases.map(() => 'finished'));
    expect(direct.map((d) => d.patch)).toEqual(contained);
    expect(contained.every((patch) => patch.startsWith('diff --git '))).toBe(true);
  }, 600_000);

  it('a gold patch that does not apply is a pool defect naming the pool and the feature, in both paths', async () => {
    const slot = (await createBackend('docker', { log: () => undefined })).acquire();
    const image = await slot.prepareImage(pool, run, () => undefined);
    const base = await slot.baseRepo(image, run);
    const brokenPath = join(scratch, `${pool.repo}-feature1.patch`);
    writeFileSync(brokenPath, readFileSync(pool.features[0]!.patchPath, 'utf8').replace(/^ (.*)$/m, ' $1 not in the base'));
    const feature = { ...pool.features[0]!, patchPath: brokenPath };
    const broken = { ...pool, features: [feature, ...pool.features.slice(1)] };
    const line = new RegExp(
      `^pool ${poolKey(pool)}: gold patch feature1/feature\\.patch \\(feature 1, ${brokenPath.replace(/[.]/g, '\\.')}\\) does not apply to the base repository: .*patch failed.* \\(fix the pool; coop-bench pools validate ${pool.dir} checks every gold patch\\)$`,
    );
    const direct = await onHost(broken, [feature], base).catch((error: unknown) => error);
    expect(direct).toBeInstanceOf(PoolDefectError);
    expect((direct as Error).message).toMatch(line);
    const contained = await inContainer(slot, image, broken, [feature]).catch((error: unknown) => error);
    expect(contained).toBeInstanceOf(PoolDefectError);
    expect((contained as Error).message).toMatch(line);
  }, 600_000);
});
