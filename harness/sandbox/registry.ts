// Sandbox backends by name (`--backend NAME`). Adding one is its folder plus one line here; each is
// loaded only when chosen, so a run never loads the client library of a backend it does not use.
import { UserError } from '../errors.ts';
import type { BackendOptions, SandboxBackend } from './types.ts';

/** --backend and the options that choose where it runs, as a run records them (--image is the run's own option). */
export type BackendChoice = { name: string } & Omit<BackendOptions, 'log' | 'image'>;

type BackendFactory = (options: BackendOptions) => Promise<SandboxBackend>;

const BACKENDS: Record<string, BackendFactory> = {
  docker: async (options) => (await import('./docker/backend.ts')).createDockerBackend(options),
  kubernetes: async (options) => (await import('./kubernetes/backend.ts')).createKubernetesBackend(options),
};

export const DEFAULT_BACKEND = 'docker';

export function backendNames(): string[] {
  return Object.keys(BACKENDS);
}

export async function createBackend(name: string, options: BackendOptions): Promise<SandboxBackend> {
  const factory = Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : undefined;
  if (!factory) throw new UserError(`unknown sandbox backend "${name}": use one of ${backendNames().join(', ')}`);
  return factory(options);
}
