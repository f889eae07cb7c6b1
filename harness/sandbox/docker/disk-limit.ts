// Bounding a container's writable storage (--disk). Where the engine's storage driver supports a
// per-container quota (StorageOpt size: overlay2 on xfs mounted with pquota, btrfs, zfs,
// devicemapper), the engine enforces it and a write past it fails with "no space left on device".
// Elsewhere (overlay2 on ext4, the common case) an agent's container is watched instead: its
// writable layer (`docker container inspect --size`, SizeRw) and the host folders mounted writable
// into it are measured every few seconds, and once over the limit the container is killed at once
// (its writes stop, its space is freed when it is removed) and the agent ends as `disk_limit`.
// Between two looks a fast writer can go past the limit by what it writes meanwhile; the quota,
// where there is one, has no such margin.
import type Docker from 'dockerode';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from './engine.ts';
import { formatGiB, SandboxLimitError } from '../errors.ts';

const DISK_POLL_MS = 2000;

const quotas = new WeakMap<Engine, Promise<boolean>>();

/** Storage drivers that take a size quota per container (docker run --storage-opt size=...). */
function driverTakesQuota(driver: string | undefined, backingFs: string | undefined): boolean {
  return driver === 'btrfs' || driver === 'zfs' || driver === 'devicemapper' || (driver === 'overlay2' && backingFs === 'xfs');
}

/**
 * Whether the engine's containers get a storage quota: its storage driver says it can, and the first
 * container created with one was accepted (overlay2 on xfs needs the pquota mount option, which
 * only that tells).
 */
export function engineTakesQuota(engine: Engine): Promise<boolean> {
  let known = quotas.get(engine);
  if (!known) {
    known = engine.docker.info().then(
      (info: { Driver?: string; DriverStatus?: [string, string][] }) =>
        driverTakesQuota(info.Driver, info.DriverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1]),
      () => false,
    );
    quotas.set(engine, known);
  }
  return known;
}

/** The engine refused a quota (`--storage-opt is supported only for overlay over xfs with 'pquota' mount option`). */
export function refusedQuota(engine: Engine, error: unknown): boolean {
  if (!/storage-?opt|quota/i.test((error as Error)?.message ?? '')) return false;
  quotas.set(engine, Promise.resolve(false));
  return true;
}

/** Bytes of the regular files under a host folder (symbolic links not followed). */
function hostFolderBytes(dir: string): number {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let names: string[];
    try {
      names = readdirSync(current);
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const stat = lstatSync(join(current, name));
        if (stat.isDirectory()) pending.push(join(current, name));
        else if (stat.isFile()) total += stat.size;
      } catch {
        // Removed meanwhile.
      }
    }
  }
  return total;
}

/** Watches one container's writable storage against its limit; `signal` is aborted with a SandboxLimitError once it is over. */
export class DiskWatch {
  private readonly over = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private looking?: Promise<void>;

  /** `hostDirs`: host folders mounted writable into the container (their files count too). */
  constructor(
    private readonly container: Docker.Container,
    private readonly limitBytes: number,
    private readonly hostDirs: string[] = [],
  ) {
    this.timer = setInterval(() => void this.check(), DISK_POLL_MS);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.over.signal;
  }

  /** Measures now (one measurement at a time); kills the container and aborts `signal` when it is over its limit. */
  check(): Promise<void> {
    return (this.looking ??= this.measure().finally(() => (this.looking = undefined)));
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async measure(): Promise<void> {
    if (this.over.signal.aborted) return;
    // A container gone or stopped has no layer to measure: its stop is told elsewhere (stop-cause.ts).
    // `size` is a query parameter of the engine's inspect (docker container inspect --size) that dockerode passes on but does not declare.
    const withSize = { size: true } as Docker.ContainerInspectOptions;
    const info = (await this.container.inspect(withSize).catch(() => undefined)) as { SizeRw?: number } | undefined;
    if (info?.SizeRw === undefined) return;
    const used = info.SizeRw + this.hostDirs.reduce((sum, dir) => sum + hostFolderBytes(dir), 0);
    if (used <= this.limitBytes) return;
    this.over.abort(
      new SandboxLimitError(
        `the agent wrote ${formatGiB(used)} to its container's disk, over the ${formatGiB(this.limitBytes)} limit (--disk): the container was stopped and what it changed is lost (empty patch)`,
        'disk_limit',
      ),
    );
    await this.container.kill().catch(() => undefined);
  }
}
