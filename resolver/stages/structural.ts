// The structural merge (../structural/): each file the naive merge conflicted on is merged by syntax
// tree instead of by lines, so two features extending one signature, one docstring, one dict or one
// class both land in code that parses. A probe by default (the paper's cascade stays naive, union,
// LLM); `--merge-cascade naive,structural,union,llm` makes it a merge stage whose code is the result
// when the tests pass. A file it cannot merge stays conflicted, with why; then the stage conflicts.
import { performance } from 'node:perf_hooks';
import { oneLine } from '../bounded-text.ts';
import { languageOf, loadGrammars, parserOf } from '../grammars.ts';
import { forwardOrder, type ConflictedFile, type MergeSession } from '../session.ts';
import { mergeFile } from '../structural/tree-merge.ts';
import { attemptOf, foldOutput, type MergeStage } from './stage.ts';

/** What the stage did with one conflicted file (stored in the attempt's details). */
export interface StructuralFile {
  path: string;
  outcome: 'merged' | 'conflict' | 'skipped';
  reason?: string;
  /** Milliseconds to parse, merge and check it. */
  ms: number;
}

export const structuralStage: MergeStage = {
  name: 'structural',
  label: 'Structural',
  kind: 'probe',
  cascadable: true,
  status: 'structural',
  runsAfter: (attempts) => attemptOf(attempts, 'naive')?.outcome === 'conflict',
  async run({ session }) {
    const files: StructuralFile[] = [];
    const fold = await session.fold(forwardOrder(session.trees.length), { kind: 'resolve', resolve: (file) => resolveFile(session, file, files) });
    return { ...foldOutput(await session.result(fold, structuralStage)), details: { files } };
  },
  accepts: (attempt) => attempt.tested?.passed === true,
};

async function resolveFile(session: MergeSession, file: ConflictedFile, log: StructuralFile[]): Promise<Buffer | { unresolved: string }> {
  const started = performance.now();
  const done = (outcome: StructuralFile['outcome'], reason?: string, merged?: string): Buffer | { unresolved: string } => {
    log.push({ path: file.path, outcome, ...(reason ? { reason } : {}), ms: performance.now() - started });
    return merged === undefined ? { unresolved: `structural merge: ${reason}` } : Buffer.from(merged, 'utf8');
  };
  try {
    const language = languageOf(file.path);
    if (!language) return done('skipped', 'not a language the structural merge parses (Python, JavaScript, TypeScript, Go, Rust)');
    const { base, ours, theirs } = file.versions;
    if (!base || !ours || !theirs) return done('skipped', 'not in all three versions (added by both patches, or deleted by one)');
    const blobs = await session.scratch.readBlobs([base, ours, theirs]);
    const texts = [base, ours, theirs].map((sha) => blobs.get(sha)!.toString('utf8'));
    if ([base, ours, theirs].some((sha, i) => !Buffer.from(texts[i]!, 'utf8').equals(blobs.get(sha)!))) return done('skipped', 'not UTF-8 text');
    await loadGrammars([language]);
    const outcome = mergeFile(parserOf(language)!, texts[0]!, texts[1]!, texts[2]!);
    if ('merged' in outcome) return done('merged', undefined, outcome.merged);
    return 'conflict' in outcome ? done('conflict', outcome.conflict) : done('skipped', outcome.skipped);
  } catch (error) {
    // No input may take a run down: the file is left to the next stage, with why.
    return done('skipped', `failed: ${oneLine(String((error as Error)?.message ?? error), 200)}`);
  }
}

/** What a task's attempts need for the structural question. */
interface AttemptVerdict {
  stage: string;
  outcome: string;
  passed?: boolean | null;
}

/**
 * Do both features pass after the naive merge or, where it conflicted, the structural merge?
 * undefined: no tested naive merge; 'unmeasured': the structural merge was not built (an older run,
 * or probes off). A structural conflict counts as not passing.
 */
export function passesAfterStructural(attempts: readonly AttemptVerdict[]): boolean | 'unmeasured' | undefined {
  const naive = attempts.find((a) => a.stage === 'naive');
  if (naive?.outcome === 'merged') return typeof naive.passed === 'boolean' ? naive.passed : undefined;
  if (naive?.outcome !== 'conflict') return undefined;
  const structural = attempts.find((a) => a.stage === structuralStage.name);
  if (!structural) return 'unmeasured';
  if (structural.outcome !== 'merged') return false;
  return typeof structural.passed === 'boolean' ? structural.passed : 'unmeasured';
}
