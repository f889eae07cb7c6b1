// `--backend docker` (the default): Docker engines, the local one or those named by --docker-host.
// A task runs on one engine from start to end (the engine with the fewest tasks running); pool
// images are built there on first use; agents and tests run in containers without network. Agents'
// commands go through a persistent exec channel per container (COOP_BENCH_EXEC_CHANNEL=off: a
// `docker exec` each).
import type { Pool } from '../../../tasks/types.ts';
import { UserError } from '../../errors.ts';
import { containerLabels } from '../labels.ts';
import type { BackendOptions, BackendSlot, SandboxBackend } from '../types.ts';
import { baseRepo } from './base-repo.ts';
import { labelledContainers, removeContainers, removeLabelledContainers, removeTrackedContainers } from './containers.ts';
import { EngineScheduler } from './engine-scheduler.ts';
import { enginesAt, isEngineError, requireEngine, type Engine } from './engine.ts';
import { poolImage, readyEngines } from './images.ts';
import { pushPoolImages } from './push.ts';
import { DockerSandbox } from './sandbox.ts';
import { AGENT_USER, agentImage } from './agent-user.ts';
import { execChannelWanted } from './exec-channel.ts';
import { dockerChecks } from './doctor.ts';
import { createTeamRepos, isDockerTeamRepos } from './team-repos.ts';
import { startTestContainer } from './test-run.ts';
import { WarmTestContainers } from './warm-tests.ts';
import { containerCpu } from './container-cpu.ts';

/** Engines whose bind mounts are folders of this machine. */
function isLocal(engine: Engine): boolean {
  if (engine.host.startsWith('unix://')) return true;
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(engine.host).hostname);
  } catch {
    return false;
  }
}

function slotOn(engine: Engine, options: BackendOptions, warm: WarmTestContainers): BackendSlot {
  let cores: Promise<number> | undefined;
  const execChannel = execChannelWanted();
  return {
    where: engine.host,
    prepareImage: (pool, _run, log) => poolImage(engine, pool, { image: options.image, log }),
    baseRepo: (image, run) => baseRepo({ engine, name: image.name, id: image.id }, run),
    async startAgentSandbox(spec) {
      const teamBinds = spec.teamRepos && isDockerTeamRepos(spec.teamRepos) ? spec.teamRepos.bindsFor(spec.agent) : [];
      const mounts = (spec.mounts ?? []).map((m) => `${m.hostPath}:${m.containerPath}:ro`);
      if ((teamBinds.length > 0 || mounts.length > 0) && !isLocal(engine)) {
        throw new UserError(
          `the Docker engine at ${engine.host} is not on this machine: it cannot mount this machine's folders (--git, agent CLIs); run them on a local engine`,
        );
      }
      return DockerSandbox.start(
        engine,
        {
          image: await agentImage(engine, spec.image.id, AGENT_USER, options.log),
          labels: containerLabels(spec.run, 'agent', { task: spec.task, agent: spec.agent }),
          limits: spec.limits,
          binds: [...teamBinds, ...mounts],
        },
        // The agent's own team repository is the one host folder it can write.
        { execChannel, agentUser: AGENT_USER, watchDisk: { hostDirs: teamBinds.filter((b) => b.endsWith(':rw')).map((b) => b.split(':')[0]!) } },
      );
    },
    startTestRun: (spec) => startTestContainer(engine, spec),
    // The engine's CPUs (those of its machine, or of its VM), asked once.
    sharedCores: () => (cores ??= engine.docker.info().then((info: { NCPU?: number }) => Math.max(1, info.NCPU ?? 1))),
    startTestSequence: (spec) => warm.startSequence(engine, spec),
  };
}

export async function createDockerBackend(options: BackendOptions): Promise<SandboxBackend> {
  const engines = enginesAt(options.dockerHosts);
  const scheduler = new EngineScheduler(engines);
  const warm = new WarmTestContainers();
  const slots = new Map<string, { engine: Engine; slot: BackendSlot }>(engines.map((engine) => [engine.host, { engine, slot: slotOn(engine, options, warm) }]));
  const engineOf = (slot: BackendSlot) => slots.get(slot.where)!.engine;
  return {
    name: 'docker',
    placeCount: engines.length,
    async prepareRun(_run: string, _pools: Pool[]) {
      await readyEngines(options.dockerHosts, options.image);
    },
    acquire: (preferred) => slots.get(scheduler.acquire(preferred).host)!.slot,
    release: (slot) => scheduler.release(engineOf(slot)),
    gitUnsupported() {
      const remote = engines.filter((engine) => !isLocal(engine));
      if (remote.length === 0) return undefined;
      return `--git needs every Docker engine on this machine (the team's repositories are bind-mounted from a local folder), but ${remote.map((e) => e.host).join(', ')} ${remote.length > 1 ? 'are' : 'is'} remote: run --git on one machine (drop --docker-host, or run a shard per machine with --shard)`;
    },
    createTeamRepos,
    sandboxNoun: 'container',
    removeLeftovers: (run) => removeLabelledContainers(engines, run),
    async listLeftovers(run?: string) {
      const ready = await Promise.all(engines.map((engine) => requireEngine(engine)));
      return labelledContainers(ready, run);
    },
    removeSandboxes: (leftovers) => removeContainers(leftovers.map((leftover) => ({ ...leftover, engine: slots.get(leftover.where)!.engine }))),
    removeOwn: removeTrackedContainers,
    removeSpares: () => warm.removeSpares(),
    testContainerCounts: () => warm.testContainerCounts(),
    cpuUsage: () => containerCpu(engines),
    isInfrastructureError: isEngineError,
    pushImages: (pools, registry, log, platform) => pushPoolImages(engines[0], pools, registry, log, platform),
    doctorChecks: dockerChecks,
  };
}
