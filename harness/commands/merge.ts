// `coop-bench merge <patch1> <patch2> --repo <dir>`: try the merge stage on any patches.
// The summary goes to stderr, the merged patch to stdout (or --out). Exit 0: a merged patch;
// 1: no mergeable result (conflict, or a patch does not apply); 2: bad input or resolver failure.
import { Command, InvalidArgumentError } from 'commander';
import { nonNegativeInt } from './options.ts';
import { UserError } from '../errors.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { oneLine } from '../../resolver/bounded-text.ts';
import {
  attemptOf,
  cascadeRoles,
  DEFAULT_CASCADE,
  DEFAULT_CONTEXT_LINES,
  DEFAULT_RESOLVER_MODEL,
  MergeSetupError,
  runCascade,
  resolverModelFromOptions,
  ResolverModelError,
  type CascadeResult,
  type MergeAttempt,
  type ResolverCliOptions,
  type RegionResolution,
  type StructuralFile,
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

/** --merge-cascade: the stages whose code can be the result, checked as the cascade checks them. */
export function mergeCascadeOf(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  try {
    cascadeRoles(names);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return names;
}

/** Adds --merge-cascade (shared by `merge`, `run` and `eval`). */
function addCascadeOption(command: Command): Command {
  return command.option(
    '--merge-cascade <stages>',
    `merge stages whose code can be the result, in order (default ${DEFAULT_CASCADE.join(',')}, the paper's; e.g. naive,structural,union,llm)`,
    mergeCascadeOf,
  );
}

/** The merge stage options of `run` and `eval`: the resolver's, --merge-cascade and --no-order-probe. */
export function addMergeStageOptions(command: Command): Command {
  return addCascadeOption(addResolverOptions(command)).option(
    '--no-order-probe',
    'do not build and test the probes of naive-conflicted tasks: the other union order and the structural merge (saves their test runs; the report then cannot say how many outcomes the order decided, nor how many pass after the structural merge)',
  );
}

/** The resolver options as commander parsed them, for resolverModelFromOptions. */
export function resolverOptionsOf(options: {
  resolverUrl?: string;
  resolverModel?: string;
  resolverGguf?: string;
  resolverTimeout?: number;
  resolverPrompt?: string;
}): ResolverCliOptions {
  return {
    resolverUrl: options.resolverUrl,
    resolverModel: options.resolverModel,
    resolverGguf: options.resolverGguf,
    resolverTimeout: options.resolverTimeout === undefined ? undefined : options.resolverTimeout * 1000,
    resolverPrompt: options.resolverPrompt,
  };
}

/** The merge stages of `run` and `eval`: a resolver model if one is configured, and the order probe. */
export function mergeStageOptions(
  options: Parameters<typeof resolverOptionsOf>[0] & { contextLines: number; orderProbe?: boolean; mergeCascade?: string[] },
): MergeStageOptions {
  try {
    return {
      resolver: resolverModelFromOptions(resolverOptionsOf(options)),
      contextLines: options.contextLines,
      orderProbe: options.orderProbe !== false,
      cascade: options.mergeCascade,
    };
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
  mergeCascade?: string[];
}

export function mergeCommand(io: CommandIO = processIO): Command {
  const command = new Command('merge')
    .description("merge agents' patches as the benchmark does (test files dropped, CooperBench's git merge, union, optional LLM resolver)")
    .argument('<patch1>', 'first patch (unified diff against the base)')
    .argument('<patch2>', 'second patch')
    .argument('[more...]', "further patches (each one's branch gets the merge of the ones before it)")
    .requiredOption('--repo <dir>', 'git repository holding the base revision')
    .option('--base <rev>', 'base revision', 'HEAD')
    .option('--out <file>', 'write the merged patch here instead of stdout');
  addCascadeOption(addResolverOptions(command));
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
    patchFiles.map((file) =>
      readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new InputError(error.code === 'ENOENT' ? `patch file not found: ${file}` : `cannot read patch file ${file}: ${error.code ?? error.message}`);
      }),
    ),
  );
  const model = resolverModelFromOptions(resolverOptionsOf(options));
  try {
    // No tests to run here: a union merge goes straight to the model when one is configured.
    const cascade = await runCascade(
      { repoDir: options.repo, baseRev: options.base, patches },
      { model, contextLines: options.contextLines, cascade: options.mergeCascade, probes: true },
    );
    const llm = attemptOf(cascade.attempts, 'llm');
    if (llm?.outcome === 'error') throw new ResolverModelError(llm.reason ?? 'the resolver failed');
    io.stderr.write(summary(cascade, patchFiles, options));
    const { merge } = cascade;
    if (merge.status === 'conflict' || merge.status === 'missing_input') return 1;
    if (options.out) await writeFile(options.out, merge.patch);
    else io.stdout.write(merge.patch);
    return 0;
  } finally {
    await model?.close?.();
  }
}

const ms = (value: number | undefined): string => (value === undefined ? '-' : `${Math.round(value)} ms`);

function summary({ merge, attempts }: CascadeResult<unknown>, patchFiles: string[], options: MergeCommandOptions): string {
  const lines: string[] = [];
  lines.push(`merge: ${merge.status}${merge.strategy ? ` (strategy ${merge.strategy})` : ''}, ${patchFiles.length} patches on ${oneLine(options.base, 60)}`);
  if (merge.reason) lines.push(`  reason: ${merge.reason}`);
  lines.push(`files (${merge.files.length}):`);
  for (const file of merge.files) {
    const by = file.touchedBy.map((i) => i + 1).join('+');
    lines.push(
      `  ${oneLine(file.path, 120)}  patch ${by}  naive conflicts ${file.naiveConflicts}  ${file.outcome ?? ''}${file.conflictReason ? `: ${file.conflictReason}` : ''}`,
    );
  }
  merge.droppedTestFiles.forEach((dropped, i) => {
    if (dropped.length > 0) lines.push(`dropped test files, patch ${i + 1}: ${dropped.map((p) => oneLine(p, 120)).join(', ')}`);
  });
  lines.push(`conflict regions: ${merge.conflictRegions.length} (${options.contextLines} lines of context)`);
  for (const region of merge.conflictRegions) {
    const size = region.marked.split('\n').filter(Boolean).length;
    lines.push(`  ${oneLine(region.path, 120)}:${region.startLine ?? '?'}  ${size} marked lines`);
  }
  const structural = attemptOf(attempts, 'structural');
  lines.push(`structural merge: ${structuralLine(structural)}`);
  for (const file of (structural?.details?.files ?? []) as StructuralFile[])
    lines.push(`  ${oneLine(file.path, 120)}  ${file.outcome}${file.reason ? `: ${file.reason}` : ''}  ${ms(file.ms)}`);
  const llm = attemptOf(attempts, 'llm');
  lines.push(`llm stage: ${llmLine(merge.status, llm)}`);
  for (const region of (llm?.details?.regions ?? []) as RegionResolution[]) {
    lines.push(
      `  ${oneLine(region.region.path, 120)}:${region.region.startLine ?? '?'}  ${region.accepted ? 'accepted' : `rejected (${region.rejectedReason})`}  ${ms(region.latencyMs)}`,
    );
  }
  const stageTimes = attempts.map((a) => `${a.stage} ${ms(a.durationMs)}`).join(', ');
  lines.push(`timings: apply ${ms(merge.timingsMs.apply)}, ${stageTimes}, merge total ${ms(merge.timingsMs.total)}`);
  return lines.join('\n') + '\n';
}

function llmLine(status: string, llm: MergeAttempt | undefined): string {
  if (!llm) return `not needed (merge is ${status})`;
  if (llm.outcome === 'skipped') return `skipped: ${llm.reason}`;
  const regions = (llm.details?.regions ?? []) as unknown[];
  if (llm.outcome === 'merged') return `accepted (${oneLine(String(llm.details?.model ?? ''), 120)}, ${regions.length} regions)`;
  return `${llm.outcome}, union result kept: ${llm.reason}`;
}

function structuralLine(structural: MergeAttempt | undefined): string {
  if (!structural) return 'not needed (the naive merge did not conflict)';
  if (structural.outcome === 'merged') return `merged every conflicted file${structural.final ? ' (the result)' : ' (a probe: not the result)'}`;
  return `${structural.outcome}: ${structural.reason ?? ''}`;
}
