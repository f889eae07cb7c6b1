// One judge question to a model: a JSON answer, parsed and validated with zod. An answer that is
// not valid JSON of the expected shape gets one second chance (the model is shown what was wrong);
// a model error or a timeout ends the question. Usage of every call is summed, failed ones included.
import type { z } from 'zod';
import type { ChatMessage, Model, Usage } from '../model.ts';
import { errorMessage } from '../../resolver/bounded-text.ts';
import { displayLine } from '../text.ts';

export interface UsageTotal {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
}

export const NO_USAGE: UsageTotal = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0 };

export function addUsage(total: UsageTotal, usage: Usage | UsageTotal): UsageTotal {
  return {
    calls: total.calls + ('calls' in usage ? usage.calls : 1),
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    costUsd: total.costUsd + usage.costUsd,
    latencyMs: total.latencyMs + usage.latencyMs,
  };
}

export type AskResult<T> = { ok: true; value: T; usage: UsageTotal } | { ok: false; error: string; usage: UsageTotal };

export interface AskOptions {
  /** Deadline for the whole question, retry included. */
  timeoutMs: number;
  maxOutputTokens?: number;
}

/** The JSON object in a model's answer: code fences and text around it are tolerated. */
export function parseJsonAnswer(text: string): unknown {
  const unfenced = text.replace(/^\s*```(?:json)?\s*\n?/i, '').replace(/\n?```\s*$/, '');
  const start = unfenced.indexOf('{');
  const end = unfenced.lastIndexOf('}');
  if (start === -1 || end < start) throw new Error('the answer contains no JSON object');
  return JSON.parse(unfenced.slice(start, end + 1));
}

function problemWith<T>(content: string, schema: z.ZodType<T>): { value: T } | { problem: string } {
  let json: unknown;
  try {
    json = parseJsonAnswer(content);
  } catch (error) {
    return { problem: `not valid JSON (${errorMessage(error)})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return { problem: `JSON of the wrong shape (${issues.join('; ')})` };
}

async function completeWithin(model: Model, system: string, messages: ChatMessage[], options: AskOptions, deadline: number) {
  const controller = new AbortController();
  const left = Math.max(1, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${options.timeoutMs < 1000 ? `${options.timeoutMs} ms` : `${Math.round(options.timeoutMs / 1000)} s`}`));
    }, left);
  });
  try {
    // Raced as well as aborted: a model that ignores the signal still cannot hold the judge.
    return await Promise.race([model.complete({ system, messages, maxOutputTokens: options.maxOutputTokens, signal: controller.signal }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function askForJson<T>(model: Model, prompt: { system: string; user: string }, schema: z.ZodType<T>, options: AskOptions): Promise<AskResult<T>> {
  const deadline = Date.now() + options.timeoutMs;
  const messages: ChatMessage[] = [{ role: 'user', content: prompt.user }];
  let usage = NO_USAGE;
  let lastProblem = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    let content: string;
    try {
      const response = await completeWithin(model, prompt.system, messages, options, deadline);
      usage = addUsage(usage, response.usage);
      content = response.content;
    } catch (error) {
      return { ok: false, error: `${model.spec}: ${displayLine(errorMessage(error), 300)}`, usage };
    }
    const checked = problemWith(content, schema);
    if ('value' in checked) return { ok: true, value: checked.value, usage };
    lastProblem = checked.problem;
    messages.push(
      { role: 'assistant', content: content.slice(0, 4000) },
      { role: 'user', content: `That answer was ${checked.problem}. Reply again with only the JSON object described in the instructions.` },
    );
  }
  return { ok: false, error: `${model.spec}: invalid answer twice, last one ${displayLine(lastProblem, 300)}`, usage };
}
