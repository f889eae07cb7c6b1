// --probe every=K: the option, and how an answer is stored (its belief read, its cost counted as
// spending apart from the agents' steps). The probe itself is the LLM agent's (agents/llm-agent.ts);
// scoring is the report's (reports/analysis/probes.ts).
import type { ProbeAnswer } from '../agents/types.ts';
import { parseBelief, type Touched } from '../../reports/analysis/probes.ts';
import { recordProbe } from '../store/probes.ts';
import type { RunStore } from '../store/run-store.ts';

/** `every=K`: K a whole number of steps from 1 to 1000; throws an error whose text says what to write. */
export function parseProbeOption(text: string): { every: number } {
  const match = /^\s*every\s*=\s*(\d+)\s*$/.exec(text);
  const every = match ? Number(match[1]) : NaN;
  if (!(every >= 1 && every <= 1000)) throw new Error(`--probe takes every=K, K the steps between probes from 1 to 1000 (e.g. every=5), not "${text}"`);
  return { every };
}

/** Stores one answer of task `taskId`: answered (its belief), unparsable, or failed (the call's error). */
export function storeProbeAnswer(store: RunStore, taskId: number, agentId: string, answer: ProbeAnswer, partnersThen: Touched): void {
  const base = { agentId, model: answer.model, step: answer.step, partnersThen };
  if ('error' in answer) {
    recordProbe(store, taskId, { ...base, status: 'failed', answer: answer.error, belief: null, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } });
    return;
  }
  const read = parseBelief(answer.text);
  recordProbe(store, taskId, {
    ...base,
    status: 'belief' in read ? 'answered' : 'unparsable',
    answer: answer.text,
    belief: 'belief' in read ? read.belief : null,
    usage: answer.usage,
  });
}
