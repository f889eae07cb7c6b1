// Every container coop-bench creates carries its labels and is tracked until removed, so that
// an interrupted run can remove its own and `coop-bench clean` can find leftovers of any run.
import type Docker from 'dockerode';
import type { Engine } from './engine.ts';
import { HOST_LABEL, LABEL, PID_LABEL, RUN_LABEL, madeByAnotherLiveProcess, type Leftover } from '../labels.ts';

/** Containers created and not yet removed, with the client of the engine they live on. */
const live = new Map<string, Docker>();
let creating = 0;
let closed = false;

/**
 * Runs a container-creating call so that shutdown can wait for it: a container the engine
 * finishes creating after shutdown began is removed at once instead of leaking.
 */
export async function trackCreation<T extends { id: string; remove(o: object): Promise<unknown> }>(
  engine: Engine,
  create: (docker: Docker) => Promise<T>,
): Promise<T> {
  if (closed) throw new Error('coop-bench is shutting down');
  creating++;
  try {
    const container = await create(engine.docker);
    if (closed) {
      await container.remove({ force: true, v: true }).catch(() => undefined);
      throw new Error('coop-bench is shutting down');
    }
    live.set(container.id, engine.docker);
    return container;
  } finally {
    creating--;
  }
}

export function untrackContainer(id: string): void {
  live.delete(id);
}

/**
 * Stops creating containers and removes every container this process created and has not removed
 * yet (SIGINT, fatal errors), after waiting (bounded) for creations already under way.
 */
export async function removeTrackedContainers(): Promise<number> {
  closed = true;
  for (let waited = 0; creating > 0 && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  const ids = [...live];
  await Promise.all(
    ids.map(async ([id, docker]) => {
      try {
        await docker.getContainer(id).remove({ force: true, v: true });
      } catch {
        // Gone already, or the engine went away: `coop-bench clean` is the fallback.
      }
      live.delete(id);
    }),
  );
  return ids.length;
}

/** A container of coop-bench's, as its labels describe it. */
export interface LabelledContainer extends Leftover {
  engine: Engine;
}

/** coop-bench's containers on every given engine (`run`: of that run only), in any state. */
export async function labelledContainers(engines: Engine[], run?: string): Promise<LabelledContainer[]> {
  const label = run ? [`${RUN_LABEL}=${run}`] : [LABEL];
  const lists = await Promise.all(
    engines.map(async (engine) =>
      (await engine.docker.listContainers({ all: true, filters: { label } })).map(({ Id, Labels }): LabelledContainer => {
        const pid = Number(Labels[PID_LABEL]);
        const creator = Labels[HOST_LABEL] && Number.isInteger(pid) && pid > 0 ? { host: Labels[HOST_LABEL], pid } : undefined;
        return { engine, id: Id, run: Labels[RUN_LABEL] ?? '', where: engine.host, creator };
      }),
    ),
  );
  return lists.flat();
}

export async function removeContainers(containers: LabelledContainer[]): Promise<number> {
  await Promise.all(
    containers.map(({ engine, id }) =>
      engine.docker
        .getContainer(id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  return containers.length;
}

/**
 * Removes leftovers of a run by label on every given engine, by the process that holds the run's
 * lock: only another live process's containers (a run of the same name in another --runs-dir) stay.
 */
export async function removeLabelledContainers(engines: Engine[], run: string): Promise<number> {
  return removeContainers((await labelledContainers(engines, run)).filter((c) => !madeByAnotherLiveProcess(c)));
}
