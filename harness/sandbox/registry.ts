// Sandbox backends by name (`--backend NAME`). Adding one is its folder plus one line here; each is
// loaded only when chosen, so a run never loads the client library of a backend it does not use.
import { UserError } from '../errors.ts';
import type { BackendOptions, SandboxBackend } from './types.ts';

type BackendFactory = (options: BackendOptions) => Promise<SandboxBackend>;

const BACKENDS: Record<string, BackendFactory> = {
  kubernetes: async (options) => (await import('./kubernetes/backend.ts')).createKubernetesBackend(options),
};

export function backendNames(): string[] {
  return Object.keys(BACKENDS);
}

export async function createBackend(name: string, options: BackendOptions): Promise<SandboxBackend> {
  const factory = Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : undefined;
  if (!factory) throw new UserError(`unknown sandbox backend "${name}": use one of ${backendNames().join(', ')}`);
  return factory(options);
}
