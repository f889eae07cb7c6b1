// The sandbox stage's interface: everything the pipeline asks of the place where agents' tools and
// hidden tests run. A backend (Docker engines, a Kubernetes cluster) implements it in its own folder
// and is registered by name in registry.ts; the pipeline receives it as a dependency, as
// tasks/validate.ts receives PoolChecks.
import type { Pool } from '../../tasks/types.ts';
import type { Leftover } from './labels.ts';

export type { Leftover };

export interface ContainerLimits {
  memoryBytes: number;
  nanoCpus: number;
  pids: number;
  /** Writable storage (what the container writes over its image; unbounded when absent): harness/sandbox/docker/disk-limit.ts. */
  diskBytes?: number;
}

export const DEFAULT_LIMITS: ContainerLimits = { memoryBytes: 4 * 1024 ** 3, nanoCpus: 2e9, pids: 1024, diskBytes: 8 * 1024 ** 3 };

/** A file of the harness's machine, copied in without being held in memory (an agent CLI's binary is hundreds of MB). */
export interface HostFile {
  hostPath: string;
  mode?: number;
}

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Default DEFAULT_EXEC_TIMEOUT_MS: no command may run unbounded. */
  timeoutMs?: number;
  /** Output kept per stream (head and tail); default 1 MiB. */
  maxOutputBytes?: number;
  /** Stops waiting for the command (its process group is killed when the sandbox goes). */
  signal?: AbortSignal;
  /** Sees the standard output as it comes (all of it, beyond maxOutputBytes): an agent CLI's event stream. */
  onStdout?: (chunk: Buffer) => void;
  /**
   * Runs as the sandbox's own user rather than the agent's unprivileged one (where the backend has
   * one): for the harness's own commands (the base snapshot, taking the patch), never an agent's.
   */
  privileged?: boolean;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** True when either stream was longer than maxOutputBytes and its middle was dropped. */
  truncated: boolean;
}

/**
 * What agents and the harness work through (after Inspect AI's exec / read_file / write_file).
 * exec: a fresh process (`cmd` as argv, no shell added) in the repository or `cwd`, under a time
 * limit, in a process group of its own that is killed when it returns (background jobs do not
 * outlive it); each stream keeps its head and tail within maxOutputBytes; 137 and timedOut when the
 * limit killed it. A command that fails because the sandbox itself stopped throws an
 * infrastructure error rather than pass for the command's own failure.
 */
export interface Sandbox {
  readonly id: string;
  exec(cmd: string[], options?: ExecOptions): Promise<ExecResult>;
  /** A regular file's content as UTF-8; throws when it is missing, not a regular file or over maxBytes. */
  readFile(path: string, maxBytes?: number): Promise<string>;
  /** Creates or replaces a file (mode 0644 unless a HostFile says otherwise) at an absolute path, creating its folders. */
  writeFile(path: string, content: string | Buffer | HostFile): Promise<void>;
  /** A login shell in the repository on a pseudo-terminal; absent where the backend cannot give one. */
  openTerminal?(size: { cols: number; rows: number }): Promise<Terminal>;
}

/**
 * An interactive shell in a sandbox on a pseudo-terminal (`coop-bench play`): bytes typed go to the
 * shell, what it prints comes back as it is printed. Its processes are the sandbox's like any other.
 */
export interface Terminal {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): Promise<void>;
  /** Output as the shell prints it; returns the removal of the listener. */
  onData(listener: (chunk: Buffer) => void): () => void;
  /** Resolves when the shell has exited or the terminal was closed. */
  readonly closed: Promise<void>;
  close(): void;
}

export interface AgentSandbox extends Sandbox {
  /** Removes the sandbox and everything in it; removing one already gone is not an error. */
  remove(): Promise<void>;
  /**
   * Stops every process the agent started and every way it reached the sandbox's exec, so that what
   * `exec` runs afterwards (the harness taking the patch) no process of the agent's can see or
   * forge. Resolves with why some would not stop (the agent's doing: it broke what the stop runs
   * with), undefined when all did. Backends without it take the patch as they are.
   */
  stopProcesses?(): Promise<string | undefined>;
  /**
   * Aborted, with a SandboxLimitError, once the agent went over a limit the backend watches rather
   * than enforces (its writable storage on an engine without quotas); the backend has stopped the
   * sandbox. Absent when the backend watches none.
   */
  readonly limitReached?: AbortSignal;
  /** Looks at the watched limits now: an agent's ending must not depend on when the watch last looked. */
  checkLimits?(): Promise<void>;
}

/** A pool's image as one backend runs it. */
export interface SandboxImage {
  /** The name results record (a tag, a registry reference). */
  readonly name: string;
  /** Its content identity: the test cache and the base repositories are keyed by it. */
  readonly id: string;
}

/** The pool's repository as agents start from it, copied to this machine for the merge. */
export interface BaseRepo {
  dir: string;
  /** Commit id of HEAD in the image: what agents start from. */
  rev: string;
}

/** --git: one bare repository per agent of a task; how sandboxes reach them is the backend's. */
export interface TeamRepos {
  readonly agentIds: string[];
  remove(): Promise<void>;
}

/** Where agents find the team's repositories: /git/<agent>.git, their own writable, partners' read-only. */
export const TEAM_REPOS_ROOT = '/git';

export interface AgentSandboxSpec {
  image: SandboxImage;
  run: string;
  /** The task's row in the run store. */
  task: number;
  agent: string;
  limits: ContainerLimits;
  teamRepos?: TeamRepos;
  /** Host folders the agent reaches the harness through (agent CLIs' sockets), read-only. */
  mounts?: { hostPath: string; containerPath: string }[];
}

export interface TestRunSpec {
  image: SandboxImage;
  run: string;
  /** The task's row in the run store, when the run has one (not for `pools validate`). */
  task?: number;
  limits: ContainerLimits;
  timeoutMs: number;
  /** Bound of the runner's output (both streams, in order), head and tail kept. */
  maxOutputBytes: number;
  /** The feature's hidden tests, given to the runner as /patches/tests.patch. */
  testsPatch: Buffer;
}

/** What the pool's runner did; the evaluation stage parses the output and caches the result. */
export interface RawTestRun {
  /** null when the time limit stopped it. */
  exitCode: number | null;
  timedOut: boolean;
  output: string;
  durationMs: number;
}

/**
 * A test sandbox started before the code to test exists (it starts while the merge runs). `run`
 * puts `patch` at /patches/patch.patch (none when empty), runs `runner.sh tests.patch
 * [patch.patch]` in the repository, and removes the sandbox; `discard` only removes it.
 */
export interface PendingTestRun {
  run(patch: string): Promise<RawTestRun>;
  discard(): Promise<void>;
}

/** A test sandbox started before it knows which features' tests it will run (see startTestSequence). */
export interface TestSequenceSpec extends Omit<TestRunSpec, 'testsPatch'> {
  /**
   * Taking this sandbox starts another like it for a later task (same image, limits and run), so
   * that no task waits for a start; the run removes what is left with removeSpares at its end.
   */
  keepWarm?: boolean;
}

/**
 * A test sandbox a task holds, running features' tests on the task's code one at a time: each `run`
 * is `runner.sh tests.patch [patch.patch]` as PendingTestRun's, the repository reset to its base
 * commit before every run after the first (as CooperBench's evaluation resets it in its one
 * container per pair). A run that the time limit stops does not stop the next: that one gets a
 * fresh sandbox. `release` ends the holding: a used sandbox is removed (never given to another
 * task), an unused one handed back.
 */
export interface TestSequence {
  run(testsPatch: Buffer, patch: string): Promise<RawTestRun>;
  release(): Promise<void>;
}

/** Test sandboxes of a backend that starts them ahead of need (Docker's warm test containers, one task each). */
export interface TestContainerCounts {
  started: number;
}

/**
 * CPU seconds spent so far in this process by the backend's sandboxes, by role (a lower bound:
 * what the backend could read), and by its engine's own daemons when they run on this machine.
 */
export interface SandboxCpu {
  agentS: number;
  testS: number;
  engineS?: number;
}

/** A share of the backend a task runs on from start to end (a Docker engine; the cluster). */
export interface BackendSlot {
  /** Where the task ran, as results record it; a re-evaluation asks for it again. */
  readonly where: string;
  /** The image to run the pool with (given --image, published, built or pushed), ready to start. */
  prepareImage(pool: Pool, run: string, log: (line: string) => void): Promise<SandboxImage>;
  baseRepo(image: SandboxImage, run: string): Promise<BaseRepo>;
  startAgentSandbox(spec: AgentSandboxSpec): Promise<AgentSandbox>;
  startTestRun(spec: TestRunSpec): Promise<PendingTestRun>;
  /**
   * CPUs that the slot's test sandboxes share (a Docker engine's), so that the evaluation runs no
   * more features' tests at once than there are. Absent: the backend spreads sandboxes over
   * machines (a cluster), one per feature, all at once, is always right.
   */
  sharedCores?(): Promise<number>;
  /** Backends that can run several features' tests in one sandbox (with sharedCores). */
  startTestSequence?(spec: TestSequenceSpec): Promise<TestSequence>;
}

export interface SandboxBackend {
  readonly name: string;
  /** How many places tasks are spread over (Docker engines); progress says where a task ran when more than one. */
  readonly placeCount: number;
  /**
   * Checks made before a run writes anything (the backend answers, --image exists, sandboxes of
   * the run's pools have no network); throws a UserError that says what to do.
   */
  prepareRun(run: string, pools: Pool[]): Promise<void>;
  /** A slot for a task: `preferred` (a `where` recorded earlier) when the backend has it. */
  acquire(preferred?: string | null): BackendSlot;
  release(slot: BackendSlot): void;
  /** --git: why this backend cannot give a team shared repositories, or undefined when it can. */
  gitUnsupported(): string | undefined;
  /** Agent CLIs (claude-code, codex): why this backend cannot run them, or undefined (or absent) when it can. */
  cliAgentsUnsupported?(): string | undefined;
  createTeamRepos(agentIds: string[]): Promise<TeamRepos>;
  /** What `clean` counts: `container`, `pod`. */
  readonly sandboxNoun: string;
  /**
   * Removes by label what a run left, by the process that holds the run's lock (an interrupted or
   * crashed run); only what another live process made stays. Returns how many sandboxes.
   */
  removeLeftovers(run: string): Promise<number>;
  /** `coop-bench clean`: what runs left (one run's when named), with who made each when known. */
  listLeftovers(run?: string): Promise<Leftover[]>;
  /** Removes what listLeftovers found (sandboxes first, then what kept them off the network); returns how many sandboxes. */
  removeSandboxes(leftovers: Leftover[]): Promise<number>;
  /** Stops creating sandboxes and removes every one this process created and has not removed (SIGINT). */
  removeOwn(): Promise<number>;
  /** Removes the sandboxes started ahead for tasks that did not come (TestSequenceSpec.keepWarm): the end of a run. */
  removeSpares?(): Promise<void>;
  /** CPU of the sandboxes removed so far, where the backend can account for it (Docker); absent: it cannot. */
  cpuUsage?(): SandboxCpu;
  /** How many test sandboxes were started since this process began. */
  testContainerCounts?(): TestContainerCounts;
  /** An error of the backend (API, connection, a sandbox that stopped): the task is an error, run again on resume. */
  isInfrastructureError(error: unknown): boolean;
  /** `coop-bench images push`: for backends that build images, tags and pushes the pools' images to `registry`. */
  pushImages?(pools: Pool[], registry: string, log: (line: string) => void, platform?: string): Promise<PushedImage[]>;
  /** `coop-bench doctor`: what this backend needs from the machine, each with what to do when it is missing. */
  doctorChecks?(pools: Pool[]): Promise<CheckResult[]>;
}

export interface PushedImage {
  pool: string;
  name: string;
  /** False for pools that use CooperBench's published image. */
  pushed: boolean;
}

export type CheckStatus = 'ok' | 'warn' | 'FAIL' | 'skip';

/** One line of `coop-bench doctor`. */
export interface CheckResult {
  status: CheckStatus;
  name: string;
  /** What was found; for warn and FAIL, also what to do. */
  detail: string;
}

/** What the CLI gives a backend; each backend reads the options that concern it. */
export interface BackendOptions {
  /** --image: every pool runs with this image. */
  image?: string;
  /** docker: --docker-host addresses (empty: the local engine). */
  dockerHosts?: string[];
  /** kubernetes: --namespace (default: the kubeconfig context's, else `default`). */
  namespace?: string;
  /** kubernetes: --registry the pools' images were pushed to (`coop-bench images push`). */
  registry?: string;
  /** kubernetes: the waits before each repeat of the network probe (default PROBE_RETRY_DELAYS_MS). */
  probeRetryDelaysMs?: number[];
  log: (line: string) => void;
}
