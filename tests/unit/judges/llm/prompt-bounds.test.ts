// Everything an LLM judge is sent is bounded: the largest task the harness can
// store (4 agents at the message bus's limits, 20 MiB patches, a megabyte of test output) goes
// through the real OpenAI SDK to the strict fake, and each request stays under the documented bound.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModel } from '../../../../harness/models/index.ts';
import { DEFAULT_MESSAGE_LIMITS } from '../../../../harness/messaging/bus.ts';
import { communicationJudge } from '../../../../judges/llm/communication.ts';
import { JUDGE_PROMPT_BOUND_CHARS } from '../../../../judges/llm/material.ts';
import { speechActsJudge } from '../../../../judges/llm/speech-acts.ts';
import { symptomsJudge } from '../../../../judges/llm/symptoms.ts';
import { llmOutcome, memoryCache } from '../../../../judges/run-judge.ts';
import type { JudgeInput } from '../../../../judges/types.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';

const AGENTS = ['agent1', 'agent2', 'agent3', 'agent4'];

/** A patch of `files` files, `fileChars` characters each. */
function hugePatch(files: number, fileChars: number, tag: string): string {
  const sections: string[] = [];
  for (let i = 0; i < files; i++) {
    const name = `src/${tag}/${'deep/'.repeat(i === files - 1 ? 100 : 1)}file${i}.py`;
    const body = `+${'x'.repeat(78)}\n`.repeat(Math.ceil(fileChars / 80));
    sections.push(`diff --git a/${name} b/${name}\nnew file mode 100644\n--- /dev/null\n+++ b/${name}\n@@ -0,0 +1 @@\n${body}`);
  }
  return sections.join('');
}

function hugeTask(): JudgeInput {
  // Many tiny messages (fences cost more than their text) and the longest ones the bus takes.
  const conversation = AGENTS.flatMap((from, a) =>
    Array.from({ length: DEFAULT_MESSAGE_LIMITS.maxMessagesPerAgent }, (_, i) => ({
      id: a * 1000 + i + 1,
      from,
      to: AGENTS.filter((x) => x !== from),
      message: i % 50 === 0 ? `long ${'y'.repeat(DEFAULT_MESSAGE_LIMITS.maxBodyChars)}` : `ok ${i}`,
      sentAt: '2026-11-23T00:00:00Z',
      deliveredAt: {},
    })),
  );
  const patch = (tag: string) => `${hugePatch(4, 5 * 1024 * 1024, tag)}${hugePatch(2000, 200, `${tag}-small`)}`;
  return {
    conversation,
    patches: AGENTS.map((agent) => ({ agent, patch: patch(agent) })),
    merge: { status: 'union', patch: patch('merged') },
    evaluations: [1, 2, 3, 4].map((feature) => ({ feature, passed: false, cause: 'AssertionError', output: 'E'.repeat(1024 * 1024) })),
    bothPassed: false,
  };
}

describe('the prompt of an LLM judge', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await startFakeOpenAI({ handler: () => '{"evidence": [], "issue": null, "primary": null, "messages": []}' });
  });
  afterEach(() => server.close());

  it('stays under the documented bound for the largest task, and says how much it left out', async () => {
    const input = hugeTask();
    const model = createModel(`openai:gpt-4o@${server.url}`, { timeoutMs: 30_000 });
    const ask = { timeoutMs: 30_000 };
    const outcomes = [
      await llmOutcome(communicationJudge, input, model, memoryCache(), ask),
      await llmOutcome(symptomsJudge, input, model, memoryCache(), ask),
      await llmOutcome(speechActsJudge, input, model, memoryCache(), ask),
    ];
    expect(outcomes.map((o) => [o.judge, o.status, o.reason])).toEqual([
      ['communication', 'ok', undefined],
      ['symptoms', 'ok', undefined],
      ['speech_acts', 'ok', undefined],
    ]);
    expect(server.refusals).toEqual([]);
    expect(server.requests).toHaveLength(3);
    const sizes = server.requests.map((r) => r.body.messages.reduce((n: number, m: { content: string }) => n + m.content.length, 0));
    for (const size of sizes) expect(size).toBeLessThanOrEqual(JUDGE_PROMPT_BOUND_CHARS);
    expect(JUDGE_PROMPT_BOUND_CHARS).toBe(197_600);

    const [communication, symptoms] = server.requests.map((r) => r.body.messages.at(-1).content as string);
    expect(communication).toMatch(/OMITTED: 7,005 characters in the middle of this item are not shown>>>/);
    expect(communication).toMatch(/\n\(1,\d{3} later messages \([\d,]+ characters\) omitted\)\n/);
    expect(symptoms).toMatch(/\(2,003 more file\(s\) of agent1's patch \([\d,]+ characters\) omitted: src\/agent1/);
    expect(symptoms).toMatch(/OMITTED: 1,04\d,\d{3} characters in the middle of this item are not shown>>>/);
    // A file name from a diff is cut in the list of omitted files too.
    for (const line of symptoms.split('\n').filter((l) => l.includes('omitted:'))) expect(line.length).toBeLessThan(3000);
  });
});
