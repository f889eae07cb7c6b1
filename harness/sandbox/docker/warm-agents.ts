// Agent containers started ahead of need, per engine, image, limits and run, as test containers are
// (warm-tests.ts): a task whose agents need no folder of this machine (no --git, no agent CLI) takes
// containers already started, so its agents' first steps do not wait for the engine's create and
// start (~0.2 s of engine CPU each, seconds under load). Each container serves one agent of one
// task and is removed with it: a spare has run nothing but its idle process and the exec channel's
// server, so an agent gets it as new. Spares carry the run's labels (no task has taken them yet);
// a taken one is renamed after its task and agent (`docker ps` tells them apart). Ctrl-C removes
// them with every tracked container, the end of the run with removeSpares.
import { DockerSandbox, type ContainerSpec, type SandboxOptions } from './sandbox.ts';
import type { Engine } from './engine.ts';

/** Spares kept per kind: a pair's two agents take theirs without waiting for a start. */
const AHEAD = 2;

interface Kind {
  ready: DockerSandbox[];
  coming: number;
}

export class WarmAgentContainers {
  private readonly kinds = new Map<string, Kind>();
  /** Starts under way in the background: removeSpares waits for them. */
  private readonly settling = new Set<Promise<void>>();
  private closed = false;

  /**
   * A started agent container: a spare of `spare` (the same container, labelled for the run only),
   * else `own` started now; either way spares are started to keep AHEAD ready for the next takers.
   * `owner` names a spare once taken.
   */
  async take(
    engine: Engine,
    own: ContainerSpec,
    spare: ContainerSpec,
    options: SandboxOptions,
    owner: { task: number; agent: string },
  ): Promise<DockerSandbox> {
    const key = JSON.stringify([engine.host, spare.image, spare.labels, spare.limits, options.execChannel ?? true]);
    let kind = this.kinds.get(key);
    if (!kind) this.kinds.set(key, (kind = { ready: [], coming: 0 }));
    const ready = kind.ready.shift();
    // Its own start first: spares queue behind it for the engine's turn (start-pacer.ts).
    const started = ready ? undefined : DockerSandbox.start(engine, own, options);
    for (let n = kind.ready.length + kind.coming; n < AHEAD && !this.closed; n++) this.startSpare(engine, spare, options, kind);
    if (!ready) return started!;
    // A name for people only: a failed rename leaves the engine's own.
    await ready.container.rename({ name: `coop-bench-task${owner.task}-${owner.agent}-${ready.id.slice(0, 12)}` }).catch(() => undefined);
    return ready;
  }

  private startSpare(engine: Engine, spec: ContainerSpec, options: SandboxOptions, kind: Kind): void {
    kind.coming++;
    const settled = DockerSandbox.start(engine, spec, options).then(
      async (sandbox) => {
        if (this.closed) await sandbox.remove();
        else kind.ready.push(sandbox);
      },
      // A start that fails here fails again, and is reported, when a task starts one itself.
      () => undefined,
    );
    const tracked = settled.catch(() => undefined).finally(() => kind.coming--);
    this.settling.add(tracked);
    void tracked.finally(() => this.settling.delete(tracked));
  }

  /** Removes every spare, after the starts under way. */
  async removeSpares(): Promise<void> {
    this.closed = true;
    while (this.settling.size > 0) await Promise.all([...this.settling]);
    const all = [...this.kinds.values()].flatMap((kind) => kind.ready);
    this.kinds.clear();
    await Promise.all(all.map((sandbox) => sandbox.remove().catch(() => undefined)));
    this.closed = false;
  }
}
