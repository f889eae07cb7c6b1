// A hand-made Model for judge tests: answers from a script (text, an error to throw, or 'hang'),
// records every request, and reports a fixed usage per call.
import type { CompletionRequest, Model, ModelResponse } from '../../../harness/models/types.ts';

export type ScriptedAnswer = string | Error | 'hang' | ((request: CompletionRequest) => string);

export interface FakeModel extends Model {
  requests: CompletionRequest[];
}

export function fakeModel(answers: ScriptedAnswer[] | ((request: CompletionRequest) => string), spec = 'fake:judge'): FakeModel {
  const queue = Array.isArray(answers) ? [...answers] : undefined;
  const requests: CompletionRequest[] = [];
  return {
    spec,
    id: 'judge',
    contextWindow: 128_000,
    requests,
    async complete(request): Promise<ModelResponse> {
      requests.push(request);
      const next = queue ? queue.shift() : (answers as (r: CompletionRequest) => string);
      if (next === undefined) throw new Error('fake model: no scripted answer left');
      if (next instanceof Error) throw next;
      if (next === 'hang') return new Promise(() => {});
      const content = typeof next === 'function' ? next(request) : next;
      return { content, toolCalls: [], usage: { inputTokens: 1000, outputTokens: 100, costUsd: 0.01, latencyMs: 5 } };
    },
  };
}
