// Hidden tests in containers from the pool image. A test container is created and started before
// the code to test exists (while the merge runs, or earlier: warm-tests.ts), then serves test runs
// sent on its stdin: `runner.sh tests.patch patch.patch` with both under /patches/, one run after
// another, the repository reset between them as CooperBench's evaluation resets it. A container
// serves one task's features and is removed (warm-tests.ts): nothing carries over to another task.
import type Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import type { ContainerLimits, PendingTestRun, RawTestRun, TestRunSpec } from '../types.ts';
import { containerLabels } from '../labels.ts';
import { BoundedSink } from '../output.ts';
import type { Engine } from './engine.ts';
import { createContainer, removeContainer } from './sandbox.ts';
import { countContainerCpu } from './container-cpu.ts';
import { pacedStart } from './start-pacer.ts';

export const RUNNER = '/usr/local/bin/runner.sh';

// One run per request on stdin: a line "<marker> <tests patch bytes> <code bytes>", then both
// patches. An empty patch means "no implementation": the runner is called without one. Before
// every run but the first, the reset of CooperBench's _run_tests (src/cooperbench/eval/sandbox.py:
// stale locks, checkout --force, reset --hard, clean -fdx to the base commit). The runner's stderr
// joins its stdout (the output keeps its order) and its stdin is empty (the requests stay unread);
// its exit code follows its output as "\n<marker> <code>\n", the marker being random per run so that
// no test output can forge it. Needs /bin/sh, head, git: every image with a runner.sh has them.
// (No putArchive and no exec: each one costs the engine a helper process.)
const SERVE = `mkdir -p /patches
base=$(git rev-parse HEAD 2>/dev/null)
reset_repository() {
  rm -f .git/index.lock .git/refs/heads/.lock
  git checkout --force "$base" && git reset --hard "$base" && git clean -fdx
}
runs=0
while read -r marker tests code; do
  head -c "$tests" > /patches/tests.patch && head -c "$code" > /patches/patch.patch || exit 125
  if [ "$runs" -gt 0 ] && [ -n "$base" ]; then reset_repository >/dev/null 2>&1; fi
  runs=$((runs + 1))
  if [ -s /patches/patch.patch ]; then ${RUNNER} tests.patch patch.patch </dev/null 2>&1
  else rm -f /patches/patch.patch; ${RUNNER} tests.patch </dev/null 2>&1
  fi
  printf '\\n%s %s\\n' "$marker" "$?"
done`;

/** What a test container is made from: containers of one key are interchangeable before their first run. */
export interface TestContainerSpec {
  image: { id: string };
  run: string;
  limits: ContainerLimits;
}

interface Expected {
  prefix: Buffer;
  sink: BoundedSink;
  done(exitCode: number | undefined): void;
}

/** Splits a container's output into its runs' outputs at the markers, each bounded on its own. */
export class RunOutputs extends Writable {
  private expected?: Expected;
  private carry = Buffer.alloc(0);

  expect(expected: Expected): void {
    this.expected = expected;
    const pending = this.carry;
    this.carry = Buffer.alloc(0);
    if (pending.length > 0) this.take(pending);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.take(this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk);
    done();
  }

  private take(data: Buffer): void {
    this.carry = Buffer.alloc(0);
    while (this.expected) {
      const { prefix, sink } = this.expected;
      const at = data.indexOf(prefix);
      const end = at < 0 ? -1 : data.indexOf(0x0a, at + prefix.length);
      if (end < 0) {
        // The marker may have begun in the last bytes: they wait for the next chunk.
        const keep = at >= 0 ? data.length - at : Math.min(data.length, prefix.length - 1);
        sink.write(data.subarray(0, data.length - keep));
        this.carry = Buffer.from(data.subarray(data.length - keep));
        return;
      }
      sink.write(data.subarray(0, at));
      const status = data.subarray(at + prefix.length, end).toString('latin1');
      const exitCode = /^\d+$/.test(status) ? Number(status) : undefined;
      const finished = this.expected;
      this.expected = undefined;
      finished.done(exitCode);
      data = data.subarray(end + 1);
    }
    // Output between runs (the shell's own complaints) is kept for the next run.
    this.carry = Buffer.from(data);
  }

  /** The container's output ended: the run under way ended without its marker. */
  ended(): void {
    const expected = this.expected;
    this.expected = undefined;
    if (expected) {
      expected.sink.write(this.carry);
      expected.done(undefined);
    }
  }
}

/** A started test container serving runs one at a time (see SERVE). */
export class TestContainer {
  private alive = true;
  private busy = false;

  private constructor(
    private readonly container: Docker.Container,
    private readonly stdin: Writable,
    private readonly outputs: RunOutputs,
    private readonly exited: Promise<number>,
  ) {}

  /** Created and started in the engine's turn (start-pacer.ts). */
  static start(engine: Engine, spec: TestContainerSpec): Promise<TestContainer> {
    return pacedStart(engine, () => TestContainer.startNow(engine, spec));
  }

  private static async startNow(engine: Engine, spec: TestContainerSpec): Promise<TestContainer> {
    const container = await createContainer(engine, {
      image: spec.image.id,
      labels: containerLabels(spec.run, 'test'),
      limits: spec.limits,
      entrypoint: ['/bin/sh', '-c', SERVE, 'coop-bench-tests'],
      stdinOnce: true,
    });
    try {
      const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream & Writable;
      const outputs = new RunOutputs();
      const both = new PassThrough();
      container.modem.demuxStream(stream, both, both);
      both.pipe(outputs);
      await container.start();
      const exited = container.wait().then((r: { StatusCode: number }) => r.StatusCode);
      exited.catch(() => undefined);
      const tests = new TestContainer(container, stream, outputs, exited);
      // The run under way ends once everything the container wrote has reached the outputs.
      outputs.on('finish', () => outputs.ended());
      let ended = false;
      const end = () => {
        tests.alive = false;
        if (!ended) both.end();
        ended = true;
      };
      stream.on('end', end);
      stream.on('close', end);
      stream.on('error', end);
      return tests;
    } catch (error) {
      await removeContainer(container);
      throw error;
    }
  }

  /** Whether it can take a run: started, not stopped, no run under way. */
  get ready(): boolean {
    return this.alive && !this.busy;
  }

  /** Runs the tests on `patch`. A run the time limit stops leaves the container stopped (not ready). */
  async run(testsPatch: Buffer, patch: string, timeoutMs: number, maxOutputBytes: number): Promise<RawTestRun> {
    const code = Buffer.from(patch, 'utf8');
    return this.request((marker) => [Buffer.from(`${marker} ${testsPatch.length} ${code.length}\n`), testsPatch, code], timeoutMs, maxOutputBytes);
  }

  /** Sends one request (its bytes given the run's marker) and waits for its end. */
  private async request(bytes: (marker: string) => Buffer[], timeoutMs: number, maxOutputBytes: number): Promise<RawTestRun> {
    if (!this.ready) throw new Error('test container is not ready for a run');
    this.busy = true;
    const marker = randomBytes(16).toString('hex');
    const sink = new BoundedSink(maxOutputBytes);
    const started = Date.now();
    try {
      const finished = new Promise<number | undefined>((done) => this.outputs.expect({ prefix: Buffer.from(`\n${marker} `), sink, done }));
      this.stdin.write(Buffer.concat(bytes(marker)));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        this.alive = false;
        // A container that cannot be killed is removed: either way its output ends.
        this.container
          .kill()
          .catch(() => this.container.remove({ force: true }))
          .catch(() => undefined);
      }, timeoutMs);
      let exitCode = await finished;
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      if (timedOut) return { exitCode: null, timedOut, output: sink.text(), durationMs };
      // No marker: the container stopped under the runner (out of memory, killed): its exit code
      // says how; a container that went away altogether is the engine's error, thrown.
      exitCode ??= await this.exited;
      return { exitCode, timedOut, output: sink.text(), durationMs };
    } finally {
      this.busy = false;
    }
  }

  async remove(): Promise<void> {
    this.alive = false;
    // Read while its processes run: the end of its stdin ends them, and their cgroup with its count.
    await countContainerCpu(this.container, 'test');
    this.stdin.destroy();
    await removeContainer(this.container);
  }
}

/** One feature's tests in a container of its own (`pools validate`; backends without sequences). */
export async function startTestContainer(engine: Engine, spec: TestRunSpec): Promise<PendingTestRun> {
  const tests = await TestContainer.start(engine, spec);
  return {
    async run(patch) {
      try {
        return await tests.run(spec.testsPatch, patch, spec.timeoutMs, spec.maxOutputBytes);
      } finally {
        await tests.remove();
      }
    },
    discard: () => tests.remove(),
  };
}
