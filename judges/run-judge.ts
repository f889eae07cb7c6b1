// Runs one judge on one task's input: the detectors directly, an LLM judge through the cache
// (keyed by judge, prompt version, model and the exact prompt) so that judging the same input
// again makes no model call.
import { createHash } from 'node:crypto';
import type { Model } from './model.ts';
import { runDetectors, DETECTORS_VERSION } from './detectors/index.ts';
import { initiativeLabels } from './detectors/initiative.ts';
import { loadLanguage } from './detectors/language.ts';
import { askForJson, NO_USAGE, type UsageTotal } from './llm/ask.ts';
import type { DroppedLabel, LlmJudge } from './llm/judge.ts';
import type { JudgeInput, JudgeLabel, JudgeName } from './types.ts';

export interface CachedAnswer {
  /** The model's validated answer, before the evidence check (the check is re-run on every use). */
  answer: unknown;
  usage: UsageTotal;
}

export interface AnswerCache {
  get(inputHash: string): CachedAnswer | undefined;
  put(inputHash: string, entry: CachedAnswer & { judge: JudgeName; model: string; promptVersion: string }): void;
}

export function memoryCache(): AnswerCache {
  const entries = new Map<string, CachedAnswer>();
  return { get: (hash) => entries.get(hash), put: (hash, entry) => void entries.set(hash, entry) };
}

export interface JudgeOutcome {
  judge: JudgeName;
  status: 'ok' | 'skipped' | 'error';
  /** Why skipped, or the error. */
  reason?: string;
  model: string;
  promptVersion: string;
  inputHash: string;
  labels: JudgeLabel[];
  dropped: DroppedLabel[];
  metrics: Record<string, number | boolean>;
  /** The answer came from the cache: no model call was made. */
  cached: boolean;
  /** Usage of the calls behind the labels (for a cached answer: of the original calls). */
  usage: UsageTotal;
}

export const DETECTORS_MODEL = 'deterministic';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function detectorOutcome(input: JudgeInput): Promise<JudgeOutcome> {
  const { labels, metrics } = await runDetectors(input);
  return {
    judge: 'detectors',
    status: 'ok',
    model: DETECTORS_MODEL,
    promptVersion: DETECTORS_VERSION,
    inputHash: sha256(JSON.stringify({ judge: 'detectors', version: DETECTORS_VERSION, input })),
    labels,
    dropped: [],
    metrics: { ...metrics },
    cached: false,
    usage: NO_USAGE,
  };
}

/** Bump when the initiative fallback changes what it finds. */
export const INITIATIVE_FALLBACK_VERSION = 'initiative-detector-1';

/** Initiative without a judge model: stored as the initiative judge's, with the `deterministic` model, undecided where unsure. */
export async function initiativeFallbackOutcome(input: JudgeInput): Promise<JudgeOutcome> {
  await loadLanguage();
  const labels = initiativeLabels(input.conversation);
  const count = (label: string) => labels.filter((l) => l.label === label).length;
  return {
    judge: 'initiative',
    status: 'ok',
    model: DETECTORS_MODEL,
    promptVersion: INITIATIVE_FALLBACK_VERSION,
    inputHash: sha256(JSON.stringify({ judge: 'initiative', version: INITIATIVE_FALLBACK_VERSION, conversation: input.conversation })),
    labels,
    dropped: [],
    metrics: { initiative: count('initiative'), no_initiative: count('no_initiative'), undecided: count('undecided:initiative') },
    cached: false,
    usage: NO_USAGE,
  };
}

/** The cache key of one judge question: judge, prompt version, model and the exact prompt. */
export function answerKey(judge: Pick<LlmJudge<unknown>, 'name' | 'promptVersion'>, model: string, prompt: { system: string; user: string }): string {
  return sha256(JSON.stringify({ judge: judge.name, version: judge.promptVersion, model, system: prompt.system, user: prompt.user }));
}

export interface LlmJudgeOptions {
  timeoutMs: number;
}

export async function llmOutcome<Answer>(
  judge: LlmJudge<Answer>,
  input: JudgeInput,
  model: Model,
  cache: AnswerCache,
  options: LlmJudgeOptions,
): Promise<JudgeOutcome> {
  const base = {
    judge: judge.name,
    model: model.spec,
    promptVersion: judge.promptVersion,
    labels: [],
    dropped: [],
    metrics: {},
    cached: false,
    usage: NO_USAGE,
  };
  const skip = judge.skipReason(input);
  if (skip) return { ...base, status: 'skipped', reason: skip, inputHash: '' };

  const prompt = judge.prompt(input);
  const inputHash = answerKey(judge, model.spec, prompt);
  let answer: Answer;
  let cached = false;
  let usage: UsageTotal;
  const hit = cache.get(inputHash);
  const fromCache = hit && judge.schema.safeParse(hit.answer);
  if (hit && fromCache?.success) {
    answer = fromCache.data;
    usage = hit.usage;
    cached = true;
  } else {
    const asked = await askForJson(model, prompt, judge.schema, { timeoutMs: options.timeoutMs });
    if (!asked.ok) return { ...base, status: 'error', reason: asked.error, inputHash, usage: asked.usage };
    answer = asked.value;
    usage = asked.usage;
    cache.put(inputHash, { answer, usage, judge: judge.name, model: model.spec, promptVersion: judge.promptVersion });
  }
  await judge.prepare?.(input);
  const { labels, dropped } = judge.labels(answer, prompt.material, input);
  return { ...base, status: 'ok', inputHash, labels, dropped, metrics: judge.metrics?.(labels) ?? {}, cached, usage };
}
