// (6b) Where a pair's evaluation time goes, at one pair at a time: the merge on this machine, the wait
// for a test container after it, the tests (each feature's run as the harness sees it: request on
// stdin to exit marker, against the same runner timed alone in a used container, the floor's
// figure), and what comes after the last test (parsing, the cache; a removal the task waits for). The test
// slot is wrapped to see when the code is sent and when each run ends; evaluatePatches is unchanged.
import { performance } from 'node:perf_hooks';
import { runCascade } from '../resolver/index.ts';
import type { GitCommand } from '../resolver/git.ts';
import type { EvaluationResult } from '../harness/run/types.ts';
import type { BackendSlot, BaseRepo, TestSequence } from '../harness/sandbox/types.ts';
import { ms, type BenchTable } from './table.ts';

/** One pair's evaluation as seen from outside evaluatePatches and from its test slot. */
export interface PairMarks {
  started: number;
  ended: number;
  /** Per test container: when the code was sent, and each feature's run in it (ms, in order). */
  groups: { sent: number; runsMs: number[] }[];
}

/** `slot` whose test sandboxes report to `marks`. */
export function markedSlot(slot: BackendSlot, marks: PairMarks): BackendSlot {
  if (!slot.startTestSequence) return slot;
  return {
    ...slot,
    async startTestSequence(spec): Promise<TestSequence> {
      const sandbox = await slot.startTestSequence!(spec);
      let group: PairMarks['groups'][number] | undefined;
      return {
        async run(testsPatch, patch) {
          if (!group) marks.groups.push((group = { sent: performance.now(), runsMs: [] }));
          const raw = await sandbox.run(testsPatch, patch);
          group.runsMs.push(raw.durationMs);
          return raw;
        },
        release: () => sandbox.release(),
      };
    },
  };
}

/** How many git processes one merge of `patches` starts, by git command (the merge alone, no tests). */
export async function mergeGitProcesses(base: BaseRepo, patches: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const trace = { command: ({ args }: GitCommand) => void counts.set(args[0]!, (counts.get(args[0]!) ?? 0) + 1) };
  await runCascade({ repoDir: base.dir, baseRev: base.rev, patches }, { probes: false, trace });
  return counts;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** A pair's merge on this machine (its stage timings), when its code first went to a test container, and its wait for one after the merge; ms. */
function mergeAndWait(mark: PairMarks, result: EvaluationResult): { merge: number; sent: number; wait: number } {
  const merge = Object.entries(result.merge.timingsMs)
    .filter(([stage]) => stage !== 'total')
    .reduce((sum, [, value]) => sum + value, 0);
  const sent = Math.min(...mark.groups.map((g) => g.sent));
  return { merge, sent, wait: Math.max(0, sent - mark.started - merge) };
}

/** Every pair's wait for a core and a test container after its merge, summed, ms (a wait the merge hides is none). */
export function waitsAfterMergeMs(marks: PairMarks[], results: EvaluationResult[]): number {
  return marks.reduce((sum, mark, p) => sum + mergeAndWait(mark, results[p]!).wait, 0);
}

/**
 * A pass's fixed costs, ms (what a run pays once, however many pairs it has): the wait after its
 * merge of the pair whose code reached a test container first (the pass's first container start),
 * and the end of the pass after its last pair (`passEnd`: the checks and removals it waits for).
 */
export function fixedCostsMs(marks: PairMarks[], results: EvaluationResult[], passEnd: number): { firstWait: number; end: number } {
  const first = marks.map((mark, p) => mergeAndWait(mark, results[p]!)).reduce((a, b) => (b.sent < a.sent ? b : a));
  return { firstWait: first.wait, end: passEnd - Math.max(...marks.map((mark) => mark.ended)) };
}

/**
 * The table: a row per pair and their mean. `aloneMs[p][f]`: feature f of pair p's runner timed
 * alone; `gitProcesses`: one merge's git processes by command.
 */
export function timelineTable(
  labels: string[],
  marks: PairMarks[],
  results: EvaluationResult[],
  aloneMs: number[][],
  gitProcesses: Map<string, number>,
  load: string,
): BenchTable {
  const rows = marks.map((mark, p) => {
    const { merge, sent, wait } = mergeAndWait(mark, results[p]!);
    const testsEnd = Math.max(...mark.groups.map((g) => g.sent + g.runsMs.reduce((a, b) => a + b, 0)));
    const inHarness = mark.groups.flatMap((g) => g.runsMs);
    return {
      total: mark.ended - mark.started,
      merge,
      wait,
      tests: testsEnd - sent,
      after: mark.ended - testsEnd,
      containers: mark.groups.length,
      feature: mean(inHarness),
      alone: mean(aloneMs[p] ?? []),
    };
  });
  const columns = ['total', 'merge', 'wait', 'tests', 'after', 'feature', 'alone'] as const;
  const line = (label: string, r: Record<(typeof columns)[number] | 'containers', number>) => [
    label,
    r.containers,
    ...columns.map((c) => ms(r[c])),
    `${(r.feature / r.alone).toFixed(2)}x`,
  ];
  const average = Object.fromEntries([...columns, 'containers'].map((c) => [c, mean(rows.map((r) => r[c as keyof (typeof rows)[number]]))]));
  const git = [...gitProcesses].sort((a, b) => b[1] - a[1]);
  return {
    id: 'realistic_timeline',
    title: "6b. Where a pair's evaluation time goes (N = 1)",
    measures:
      "Per pair, evaluated alone with warm test containers: ms from evaluatePatches called to returned; the merge on this machine (its stage timings); the wait from the merge's end to the code sent to a test container; the tests (code sent to the last run's exit marker); after (the last marker to evaluatePatches returning: parsing, the cache, a container removal the task waits for). feature: one feature's run as the harness times it (request on stdin to marker: patches written, reset, runner); alone: the same runner on the same code timed inside a used container with nothing else running (the floor's figure).",
    columns: ['pair', 'containers', 'total ms', 'merge ms', 'wait ms', 'tests ms', 'after ms', 'feature ms (harness)', 'feature ms (alone)', 'harness/alone'],
    rows: [...rows.map((r, p) => line(labels[p]!, r)), line('mean', average as Record<(typeof columns)[number] | 'containers', number>)],
    notes: [
      `One merge (no tests) starts ${git.reduce((sum, [, n]) => sum + n, 0)} git processes: ${git.map(([command, n]) => `${n} ${command}`).join(', ')}.`,
      load,
    ],
  };
}
