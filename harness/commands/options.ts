// Option parsing shared by the commands: lists, sizes, the container limits and the sandbox backend.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_LIMITS, type ContainerLimits } from '../sandbox/types.ts';
import { backendNames, DEFAULT_BACKEND, type BackendChoice } from '../sandbox/registry.ts';
import { REASONING_EFFORTS, type ModelOptions, type ReasoningEffort } from '../models/index.ts';
import { UserError, errorMessage } from '../errors.ts';

export function list(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list');
  return items;
}

export function numberList(value: string): number[] {
  return list(value).map((item) => {
    const n = Number(item);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`"${item}" is not a whole number`);
    return n;
  });
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

/** `512m`, `4g`, `1073741824`. */
export function byteSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)b?$/i.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`"${value}" is not a size like 512m or 4g`);
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Math.round(Number(m[1]) * scale);
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a positive number`);
  return n;
}

export function addContainerOptions(command: Command): Command {
  return command
    .option('--memory <size>', 'memory limit per container', byteSize, DEFAULT_LIMITS.memoryBytes)
    .option('--cpus <n>', 'CPU limit per container', positiveNumber, DEFAULT_LIMITS.nanoCpus / 1e9)
    .option('--pids <n>', 'process limit per container', positiveInt, DEFAULT_LIMITS.pids)
    .option(
      '--disk <size>',
      "writable storage per container (a quota where the engine's storage driver takes one, else watched; on Kubernetes each pod's ephemeral-storage limit: an agent over it ends as disk_limit)",
      byteSize,
      DEFAULT_LIMITS.diskBytes,
    )
    .option('--test-timeout <seconds>', 'time limit of one feature test run', positiveInt, 900);
}

export function containerLimits(options: { memory: number; cpus: number; pids: number; disk: number }): ContainerLimits {
  return { memoryBytes: options.memory, nanoCpus: Math.round(options.cpus * 1e9), pids: options.pids, diskBytes: options.disk };
}

function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`use ${values.join(', ')}`);
    return value as T;
  };
}

export function addModelOptions(command: Command): Command {
  return command
    .option('--prices <file>', 'JSON price table merged over the built-in one (default: $COOP_BENCH_PRICES)')
    .option('--model-retries <n>', 'retries of a failed model call (429, 5xx, timeouts) before the task errors', nonNegativeInt)
    .option('--model-timeout <seconds>', 'time limit of one model call attempt', positiveInt)
    .option('--max-output-tokens <n>', "output tokens a model call may use (default: the model's limit, at most 32000)", positiveInt)
    .option(
      '--context-window <tokens>',
      "context window of models the price table does not know (default: what the server says, e.g. vLLM's max_model_len)",
      positiveInt,
    )
    .option(
      '--reasoning-effort <effort>',
      `reasoning effort of OpenAI reasoning models: ${REASONING_EFFORTS.join(', ')} (default: the model's)`,
      oneOf(REASONING_EFFORTS),
    )
    .option(
      '--openai-api <api>',
      'OpenAI endpoint: chat or responses (default: responses for gpt-5 and o-series models at OpenAI, chat otherwise)',
      oneOf(['chat', 'responses'] as const),
    )
    .option(
      '--cache-ttl <ttl>',
      'lifetime of Anthropic prompt cache entries: 5m or 1h (1h costs 2x the input price to write, 5m 1.25x)',
      oneOf(['5m', '1h'] as const),
      '5m',
    );
}

export function modelOptions(options: {
  prices?: string;
  modelRetries?: number;
  modelTimeout?: number;
  maxOutputTokens?: number;
  contextWindow?: number;
  reasoningEffort?: ReasoningEffort;
  openaiApi?: 'chat' | 'responses';
  cacheTtl?: '5m' | '1h';
}): ModelOptions {
  return {
    pricesFile: options.prices,
    maxRetries: options.modelRetries,
    timeoutMs: options.modelTimeout === undefined ? undefined : options.modelTimeout * 1000,
    maxOutputTokens: options.maxOutputTokens,
    contextWindow: options.contextWindow,
    reasoningEffort: options.reasoningEffort,
    openaiApi: options.openaiApi,
    cacheTtl: options.cacheTtl,
  };
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`"${value}" is not a whole number`);
  return n;
}

/** --backend and where it runs: --docker-host (repeatable) and --docker-hosts <file>, or --namespace. */
export function addBackendOptions(command: Command): Command {
  return command
    .addOption(new Option('--backend <name>', 'where sandboxes run').choices(backendNames()).default(DEFAULT_BACKEND))
    .option(
      '--docker-host <url>',
      'docker: an engine to run tasks on (unix://, tcp://, ssh://); repeat for several (default: DOCKER_HOST or the local socket)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--docker-hosts <file>', 'docker: a file listing engines, one address per line')
    .option(
      '--namespace <name>',
      "kubernetes: the namespace of the run's pods (default: the kubeconfig context's, else default); kubeconfig from KUBECONFIG, ~/.kube/config or the pod's service account",
    )
    .option('--registry <host/path>', "kubernetes: the registry `coop-bench images push --registry` pushed the pools' images to");
}

interface BackendFlags {
  backend?: string;
  dockerHost?: string[];
  dockerHosts?: string;
  namespace?: string;
  registry?: string;
}

export function backendChoice(options: BackendFlags): BackendChoice {
  const name = options.backend ?? DEFAULT_BACKEND;
  const dockerHosts = [...(options.dockerHost ?? []), ...(options.dockerHosts ? readHostsFile(options.dockerHosts) : [])];
  if (name !== 'docker' && dockerHosts.length > 0) throw new UserError(`--docker-host and --docker-hosts are for --backend docker, not ${name}`);
  if (name !== 'kubernetes' && (options.namespace || options.registry))
    throw new UserError(`--namespace and --registry are for --backend kubernetes, not ${name}`);
  return { name, dockerHosts, namespace: options.namespace, registry: options.registry };
}

/** Docker engine addresses from a hosts file: one per line; blank lines and `#` comments are skipped. */
export function readHostsFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read the hosts file ${path}: ${errorMessage(error)}`);
  }
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
}
