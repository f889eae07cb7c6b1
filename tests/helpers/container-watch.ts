// Records the settings of every container a run creates, from the engine's event stream: each
// container is inspected as soon as it is created, before a short-lived one can be removed.
import Docker from 'dockerode';
import { RUN_LABEL, ROLE_LABEL } from '../../harness/sandbox/labels.ts';

export interface WatchedContainer {
  id: string;
  role: string;
  networkMode: string;
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  binds: string[];
  /** The container's environment as created (KEY=value). */
  env: string[];
}

export interface ContainerWatch {
  seen: WatchedContainer[];
  /** Containers gone before they could be inspected. */
  missed: number;
  stop(): Promise<void>;
}

export async function watchContainers(run: string): Promise<ContainerWatch> {
  const docker = new Docker();
  const stream = (await docker.getEvents({ filters: { type: ['container'], event: ['create'], label: [`${RUN_LABEL}=${run}`] } })) as NodeJS.ReadableStream & {
    destroy(): void;
  };
  const watch: ContainerWatch = { seen: [], missed: 0, stop: async () => undefined };
  const pending: Promise<void>[] = [];
  let buffer = '';
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const { id } = JSON.parse(line) as { id: string };
      pending.push(
        docker
          .getContainer(id)
          .inspect()
          .then(
            (info) =>
              void watch.seen.push({
                id,
                role: info.Config.Labels[ROLE_LABEL],
                networkMode: info.HostConfig.NetworkMode ?? '',
                memoryBytes: info.HostConfig.Memory ?? 0,
                nanoCpus: info.HostConfig.NanoCpus ?? 0,
                pidsLimit: info.HostConfig.PidsLimit ?? 0,
                binds: info.HostConfig.Binds ?? [],
                env: info.Config.Env ?? [],
              }),
            () => void watch.missed++,
          ),
      );
    }
  });
  watch.stop = async () => {
    stream.destroy();
    await Promise.all(pending);
  };
  return watch;
}
