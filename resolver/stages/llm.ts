// The LLM stage (paper appendix B), after the union result failed the tests: every conflict region
// of the naive merge goes to a small model, and the merge is redone with the model's resolutions in
// place of the union. One rejected answer keeps the union result; a backend failure is recorded.
import { performance } from 'node:perf_hooks';
import { checkAnswer, type RegionParts } from '../answer-check.ts';
import { bounded, oneLine } from '../bounded-text.ts';
import { toConflictRegion, type LocatedRegion } from '../conflict-regions.ts';
import { buildPrompt, oversizePrompt } from '../llm-prompt.ts';
import { forwardOrder, type ConflictedFile } from '../session.ts';
import type { RegionResolution, ResolverModel } from '../types.ts';
import { ResolverModelError } from '../models/model-error.ts';
import { attemptOf, foldOutput, type MergeStage, type StageOutput } from './stage.ts';

export const NO_RESOLVER = 'no resolver configured (--resolver-url or --resolver-gguf)';
const DEFAULT_MAX_REGIONS = 50;

/** An answer failed the checks: abandon the stage. */
class RegionRejected extends Error {}

export const llmStage: MergeStage = {
  name: 'llm',
  label: 'LLM',
  kind: 'merge',
  status: 'llm',
  runsAfter: (attempts) => attemptOf(attempts, 'union')?.outcome === 'merged',
  async run({ session, attempts, settings }) {
    const { model } = settings;
    if (!model) return { outcome: 'skipped', reason: NO_RESOLVER };
    const maxRegions = settings.maxRegions ?? DEFAULT_MAX_REGIONS;
    const regionCount = attemptOf(attempts, 'union')?.result?.conflictRegions.length ?? 0;
    const started = performance.now();
    const regions: RegionResolution[] = [];
    const details = () => ({ model: model.name, latencyMs: performance.now() - started, regions });
    if (regionCount > maxRegions) {
      return { outcome: 'rejected', reason: `${regionCount} conflict regions, more than the ${maxRegions} sent to the model`, details: details() };
    }
    let output: StageOutput;
    try {
      const fold = await session.fold(forwardOrder(session.trees.length), { kind: 'resolve', resolve: (file) => resolveFile(file, model, regions) });
      output = foldOutput(await session.result(fold, llmStage));
    } catch (error) {
      if (error instanceof RegionRejected) return { outcome: 'rejected', reason: error.message, details: details() };
      // An unreachable resolver must not lose the pair's result: the union verdict stands, with why.
      if (error instanceof ResolverModelError) return { outcome: 'error', reason: oneLine(error.message, 500), details: details() };
      throw error;
    }
    return { ...output, details: details() };
  },
  accepts: () => true,
};

async function resolveFile(file: ConflictedFile, model: ResolverModel, log: RegionResolution[]): Promise<Buffer> {
  const text = file.naive.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(file.naive)) throw new RegionRejected(`${oneLine(file.path, 120)}: not UTF-8 text`);
  const eol = file.lines[file.regions[0]!.start]!.endsWith('\r\n') ? '\r\n' : '\n';

  // Every prompt of the file is checked before the first is sent: one region too long rejects the stage.
  const asks = file.regions.map((located) => {
    const parts = regionParts(file.lines, located);
    return { parts, region: toConflictRegion(file.path, file.lines, located), prompt: buildPrompt(file.path, parts, file.labels, model.promptTemplate) };
  });
  for (const { region, prompt } of asks) {
    const oversize = oversizePrompt(prompt);
    if (oversize) throw new RegionRejected(`${oneLine(file.path, 120)} line ${region.startLine}: ${oversize}`);
  }

  const replacements: string[][] = [];
  for (const { parts, region, prompt } of asks) {
    const asked = performance.now();
    const answer = await model.complete(prompt);
    const latencyMs = performance.now() - asked;
    const check = checkAnswer(parts, answer);
    log.push({
      region,
      accepted: check.ok,
      latencyMs,
      answer: bounded(answer),
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
