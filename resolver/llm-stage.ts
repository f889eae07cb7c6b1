// The LLM stage (paper appendix B). The evaluation calls it only after the union result failed the
// tests: every conflict region of the naive merge goes to a small model, and the merge is redone
// with the model's resolutions in place of the union. One rejected answer keeps the union result.
import { performance } from 'node:perf_hooks';
import { checkAnswer, type RegionParts } from './answer-check.ts';
import { bounded, oneLine } from './bounded-text.ts';
import { DEFAULT_CONTEXT_LINES, toConflictRegion, type LocatedRegion } from './conflict-regions.ts';
import { buildPrompt } from './llm-prompt.ts';
import { runMerge, type ConflictedFile, type ConflictStage } from './merge.ts';
import type { LlmStageResult, MergeInput, MergeResult, RegionResolution, ResolverModel } from './types.ts';

export interface LlmStageOptions {
  /** Undefined: the stage is skipped and the result says so. */
  model?: ResolverModel;
  /** Lines of context around each region (default 5, as in the paper). */
  contextLines?: number;
  /** More regions than this are not sent to the model (default 50): the union result is kept. */
  maxRegions?: number;
}

export const NO_RESOLVER = 'no resolver configured (--resolver-url or --resolver-gguf)';

/** An answer failed the checks: abandon the stage. */
class RegionRejected extends Error {}

/**
 * Resolves the conflict regions of a merge whose union result failed the tests.
 * Model backend failures (unreachable endpoint, unloadable model) are thrown as ResolverModelError.
 */
export async function resolveWithModel(
  input: MergeInput,
  unionResult: MergeResult,
  options: LlmStageOptions,
): Promise<LlmStageResult> {
  const started = performance.now();
  const { model } = options;
  const skipped = (skippedReason: string): LlmStageResult => ({ accepted: false, skippedReason, regions: [], latencyMs: 0, model: model?.name });
  if (!model) return skipped(NO_RESOLVER);
  if (unionResult.status !== 'union') return skipped(`nothing for the model to resolve: the merge status is ${unionResult.status}`);
  const maxRegions = options.maxRegions ?? 50;
  if (unionResult.conflictRegions.length > maxRegions) {
    return {
      accepted: false, regions: [], latencyMs: 0, model: model.name,
      rejectedReason: `${unionResult.conflictRegions.length} conflict regions, more than the ${maxRegions} sent to the model`,
    };
  }

  const regions: RegionResolution[] = [];
  const stage: ConflictStage = {
    strategy: 'llm',
    resolve: (file) => resolveFile(file, model, regions),
  };
  const done = (result: Omit<LlmStageResult, 'regions' | 'latencyMs' | 'model'>): LlmStageResult => ({
    ...result, regions, latencyMs: performance.now() - started, model: model.name,
  });
  try {
    const resolved = await runMerge(input, stage, { contextLines: options.contextLines ?? DEFAULT_CONTEXT_LINES });
    if (resolved.status !== 'llm') {
      return done({ accepted: false, rejectedReason: `the merge redone with the model ended as ${resolved.status}` });
    }
    return done({ resolved, accepted: true });
  } catch (error) {
    if (error instanceof RegionRejected) return done({ accepted: false, rejectedReason: error.message });
    throw error;
  }
}

async function resolveFile(file: ConflictedFile, model: ResolverModel, log: RegionResolution[]): Promise<Buffer> {
  const text = file.naive.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(file.naive)) throw new RegionRejected(`${oneLine(file.path, 120)}: not UTF-8 text`);
  const eol = file.lines[file.regions[0]!.start]!.endsWith('\r\n') ? '\r\n' : '\n';

  const replacements: string[][] = [];
  for (const located of file.regions) {
    const parts = regionParts(file.lines, located);
    const region = toConflictRegion(file.path, file.lines, located);
    const asked = performance.now();
    const answer = await model.complete(buildPrompt(file.path, parts, file.labels, model.promptTemplate));
    const latencyMs = performance.now() - asked;
    const check = checkAnswer(parts, answer);
    log.push({
      region, accepted: check.ok, latencyMs, answer: bounded(answer),
      ...(check.ok ? {} : { rejectedReason: check.reason }),
    });
    if (!check.ok) throw new RegionRejected(`${oneLine(file.path, 120)} line ${region.startLine}: ${check.reason}`);
    replacements.push(check.resolution.map((line) => line + eol));
  }

  // Splice from the last region backwards so earlier indices stay valid.
  const lines = [...file.lines];
  for (let k = file.regions.length - 1; k >= 0; k--) {
    const located = file.regions[k]!;
    lines.splice(located.start, located.end - located.start + 1, ...replacements[k]!);
  }
  return Buffer.from(lines.join(''), 'utf8');
}

function regionParts(lines: string[], region: LocatedRegion): RegionParts {
  return {
    before: lines.slice(region.beforeStart, region.start),
    ours: lines.slice(region.start + 1, region.separator),
    theirs: lines.slice(region.separator + 1, region.end),
    after: lines.slice(region.end + 1, region.afterEnd),
  };
}
