// `coop-bench merge <patch1> <patch2> --repo <dir>`: try the merge stage on any patches.
// The summary goes to stderr, the merged patch to stdout (or --out). Exit 0: a merged patch;
// 1: no mergeable result (conflict, or a patch does not apply); 2: bad input or resolver failure.
import { Command } from 'commander';
import { nonNegativeInt } from './options.ts';
import { UserError } from '../errors.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { oneLine } from '../../resolver/bounded-text.ts';
import {
  DEFAULT_CONTEXT_LINES, DEFAULT_RESOLVER_MODEL, mergePatches, MergeSetupError, resolveWithModel,
  resolverModelFromOptions, ResolverModelError,
  type LlmStageResult, type MergeInput, type MergeResult, type ResolverCliOptions,
} from '../../resolver/index.ts';

export interface CommandIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  setExitCode(code: number): void;
}

const processIO: CommandIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

/** Adds --resolver-url, --resolver-model, --resolver-gguf, --resolver-timeout, --context-lines (shared with `run` and `eval`). */
export function addResolverOptions(command: Command): Command {
  return command
    .option('--context-lines <n>', 'lines of context around each conflict region sent to the resolver', nonNegativeInt, DEFAULT_CONTEXT_LINES)
    .option('--resolver-url <url>', 'OpenAI-compatible endpoint of the LLM merge resolver (llama.cpp, vLLM, Ollama)')
    .option('--resolver-model <name>', 'model name at --resolver-url', DEFAULT_RESOLVER_MODEL)
    .option('--resolver-gguf <path>', 'local GGUF file for the embedded resolver (node-llama-cpp)')
    .option('--resolver-timeout <seconds>', 'per-request timeout of the resolver endpoint', nonNegativeInt)
    .option('--resolver-prompt <file>', 'prompt template of the resolver ({{excerpt}}, {{file}}, ...; default resolver/llm-prompt.txt)');
}

/** The resolver options as commander parsed them, for resolverModelFromOptions. */
export function resolverOptionsOf(options: { resolverUrl?: string; resolverModel?: string; resolverGguf?: string; resolverTimeout?: number; resolverPrompt?: string }): ResolverCliOptions {
  return {
    resolverUrl: options.resolverUrl,
    resolverModel: options.resolverModel,
    resolverGguf: options.resolverGguf,
    resolverTimeout: options.resolverTimeout === undefined ? undefined : options.resolverTimeout * 1000,
    resolverPrompt: options.resolverPrompt,
  };
}

/** The LLM merge stage of `run` and `eval`: a resolver model if one is configured. */
export function mergeStageOptions(options: Parameters<typeof resolverOptionsOf>[0] & { contextLines: number }): MergeStageOptions {
  try {
    return { resolver: resolverModelFromOptions(resolverOptionsOf(options)), contextLines: options.contextLines };
  } catch (error) {
    if (error instanceof ResolverModelError) throw new UserError(error.message);
    throw error;
  }
}

interface MergeCommandOptions {
  repo: string;
  base: string;
  contextLines: number;
  out?: string;
  resolverUrl?: string;
  resolverModel?: string;
  resolverGguf?: string;
  resolverTimeout?: number;
  resolverPrompt?: string;
}

export function mergeCommand(io: CommandIO = processIO): Command {
  const command = new Command('merge')
    .description('merge agents\' patches as the benchmark does (test files dropped, git merge-file, union, optional LLM resolver)')
    .argument('<patch1>', 'first patch (unified diff against the base)')
    .argument('<patch2>', 'second patch')
    .argument('[more...]', 'further patches, merged sequentially')
    .requiredOption('--repo <dir>', 'git repository holding the base revision')
    .option('--base <rev>', 'base revision', 'HEAD')
    .option('--out <file>', 'write the merged patch here instead of stdout');
  addResolverOptions(command);
  return command.action(async (patch1: string, patch2: string, more: string[], options: MergeCommandOptions) => {
    try {
      io.setExitCode(await runMergeCommand([patch1, patch2, ...more], options, io));
    } catch (error) {
      const known = error instanceof MergeSetupError || error instanceof ResolverModelError || error instanceof InputError;
      io.stderr.write(`coop-bench merge: ${oneLine(known ? error.message : String((error as Error)?.stack ?? error), 400)}\n`);
      io.setExitCode(2);
    }
  });
}

class InputError extends Error {}

async function runMergeCommand(patchFiles: string[], options: MergeCommandOptions, io: CommandIO): Promise<number> {
  const patches = await Promise.all(
    patchFiles.map((file) => readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new InputError(error.code === 'ENOENT' ? `patch file not found: ${file}` : `cannot read patch file ${file}: ${error.code ?? error.message}`);
    })),
  );
  const model = resolverModelFromOptions(resolverOptionsOf(options));
  try {
    const input: MergeInput = { repoDir: options.repo, baseRev: options.base, patches };
    const merged = await mergePatches(input, { contextLines: options.contextLines });
    // No tests to run here: a conflicted merge goes straight to the model when one is configured.
    const llm = merged.status === 'union' ? await resolveWithModel(input, merged, { model, contextLines: options.contextLines }) : undefined;
    const final = llm?.resolved ?? merged;

    io.stderr.write(summary(merged, llm, patchFiles, options));
    if (final.status === 'conflict' || final.status === 'missing_input') return 1;
    if (options.out) await writeFile(options.out, final.patch);
    else io.stdout.write(final.patch);
    return 0;
  } finally {
    await model?.close?.();
  }
}

const ms = (value: number | undefined): string => (value === undefined ? '-' : `${Math.round(value)} ms`);

function summary(merged: MergeResult, llm: LlmStageResult | undefined, patchFiles: string[], options: MergeCommandOptions): string {
  const final = llm?.resolved ?? merged;
  const lines: string[] = [];
  lines.push(`merge: ${final.status}${final.strategy ? ` (strategy ${final.strategy})` : ''}, ${patchFiles.length} patches on ${oneLine(options.base, 60)}`);
  if (final.reason) lines.push(`  reason: ${final.reason}`);
  lines.push(`files (${merged.files.length}):`);
  for (const file of final.files) {
    const by = file.touchedBy.map((i) => i + 1).join('+');
    lines.push(`  ${oneLine(file.path, 120)}  patch ${by}  naive conflicts ${file.naiveConflicts}  ${file.outcome ?? ''}${file.conflictReason ? `: ${file.conflictReason}` : ''}`);
  }
  merged.droppedTestFiles.forEach((dropped, i) => {
    if (dropped.length > 0) lines.push(`dropped test files, patch ${i + 1}: ${dropped.map((p) => oneLine(p, 120)).join(', ')}`);
  });
  lines.push(`conflict regions: ${merged.conflictRegions.length} (${options.contextLines} lines of context)`);
  for (const region of merged.conflictRegions) {
    const size = region.marked.split('\n').filter(Boolean).length;
    lines.push(`  ${oneLine(region.path, 120)}:${region.startLine ?? '?'}  ${size} marked lines`);
  }
  lines.push(`llm stage: ${llmLine(merged, llm)}`);
  for (const region of llm?.regions ?? []) {
    lines.push(`  ${oneLine(region.region.path, 120)}:${region.region.startLine ?? '?'}  ${region.accepted ? 'accepted' : `rejected (${region.rejectedReason})`}  ${ms(region.latencyMs)}`);
  }
  const t = final.timingsMs;
  lines.push(`timings: apply ${ms(t.apply)}, naive ${ms(merged.timingsMs.naive)}, union ${ms(merged.timingsMs.union)}, llm ${ms(llm?.latencyMs || undefined)}, merge total ${ms(merged.timingsMs.total)}`);
  return lines.join('\n') + '\n';
}

function llmLine(merged: MergeResult, llm: LlmStageResult | undefined): string {
  if (!llm) return `not needed (merge is ${merged.status})`;
  if (llm.skippedReason) return `skipped: ${llm.skippedReason}`;
  if (llm.accepted) return `accepted (${oneLine(llm.model ?? '', 120)}, ${llm.regions.length} regions)`;
  return `rejected, union result kept: ${llm.rejectedReason}`;
}
