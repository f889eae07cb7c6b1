// What one agent CLI is to coop-bench: its package, how to launch it non-interactively, and how to
// read its JSON event stream. One file per CLI in this folder, listed in index.ts.
import type { Provider } from '../../models/index.ts';
import type { Trajectory } from '../trajectory.ts';

/** The container's platform, which picks the CLI build. */
export interface CliPlatform {
  arch: 'x64' | 'arm64';
  libc: 'glibc' | 'musl';
}

export interface CliBuild {
  /** An optional dependency of coop-bench pinned in package.json (harness/agents/cli/binaries.ts). */
  packageName: string;
  /** Files of the package (relative paths) and where they go in the container (made executable). */
  files: { from: string; to: string }[];
}

export interface LaunchContext {
  /** Concrete model id. */
  model: string;
  /** The task prompt (tasks/prompts.ts). */
  prompt: string;
  maxSteps: number;
  /** The model endpoint inside the container: `http://127.0.0.1:<port>` (no path). */
  apiURL: string;
  /** A standard `mcpServers` file for the message server; absent without messaging. */
  mcpConfigPath?: string;
  /** The command mcpConfigPath names, for CLIs configured otherwise. */
  mcpServer?: { name: string; command: string; args: string[] };
  /** A writable home folder outside the repository, for the CLI's own state. */
  home: string;
}

export interface Launch {
  /** The CLI's argv, run in the repository. */
  command: string[];
  /** Its whole environment besides PATH and HOME (no key: the proxy adds it outside). */
  env: Record<string, string>;
  /** Configuration files written before it starts. */
  files: { path: string; content: string }[];
}

/** How the run ended, by the CLI's own account. */
export interface CliEnding {
  status: 'finished' | 'step_limit' | 'error';
  error?: string;
}

/** Reads one CLI run's JSON lines as they come, into the trajectory. */
export interface EventReader {
  line(event: unknown): void;
  /** After the last line: the CLI's own account of the end, if it gave one. */
  ending(): CliEnding | undefined;
}

export interface CliDefinition {
  /** The spec's name: `<name>` or `<name>:<model>`. */
  name: string;
  /** Product name and pinned version, for docs and messages. */
  title: string;
  provider: Provider;
  /** A model the CLI runs fully (`degradedOn` has nothing against it), and one the catalogue does not retire. */
  defaultModel: string;
  /**
   * Why the pinned CLI would run `model` without the tools it gives the models it is built for (Codex:
   * one its bundled model catalogue does not list, or one it sends in a form the public API does not
   * document), naming the model to use instead; undefined when it runs it fully or cannot tell. A run
   * refuses such a model unless told to run it degraded (--allow-degraded-cli-model).
   */
  degradedOn?(model: string): string | undefined;
  build(platform: CliPlatform): CliBuild;
  launch(context: LaunchContext): Launch;
  reader(trajectory: Trajectory): EventReader;
}

/** A JSON object's field, as an object, if it is one. */
export function field(value: unknown, key: string): Record<string, unknown> | undefined {
  const inner = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
}

/** A JSON value as text: strings as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
