// Conversations and diffs for the detectors' tests.
import type { ConversationMessage } from '../../../../harness/store/records.ts';
import { loadGrammarsFor } from '../../../../judges/code/patch-code.ts';
import { extractCommitments, type Commitment, type Target } from '../../../../judges/detectors/commitment-extract.ts';
import { brokenCommitments } from '../../../../judges/detectors/commitments.ts';
import type { JudgeInput } from '../../../../judges/types.ts';

/** Two agents' messages, one a minute; `delivered`: when it reached the partner (null: never; default: when sent). */
export function conversation(...messages: [from: string, text: string, delivered?: string | null][]): ConversationMessage[] {
  return messages.map(([from, message, delivered], i) => {
    const sentAt = new Date(Date.UTC(2025, 0, 6, 9, i)).toISOString();
    const to = from === 'agent1' ? ['agent2'] : ['agent1'];
    return { id: i + 1, from, to, message, sentAt, deliveredAt: { [to[0]!]: delivered === undefined ? sentAt : delivered } };
  });
}

/** The targets of the last message's commitments. */
export const targets = (...messages: [from: string, text: string][]) =>
  extractCommitments(conversation(...messages))
    .filter((c) => c.messageId === messages.length)
    .map((c) => c.target);

/** A one-hunk diff of `path`: `lines` are the hunk body (' ', '+', '-' prefixed). */
export function diff(path: string, oldStart: number, newStart: number, lines: string[], context = ''): string {
  const oldCount = lines.filter((l) => !l.startsWith('+')).length;
  const newCount = lines.filter((l) => !l.startsWith('-')).length;
  return [
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@${context ? ` ${context}` : ''}`,
    ...lines,
    '',
  ].join('\n');
}

export function newFile(path: string, lines: string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n');
}

/** The broken commitments of the input: those the extractor reads, or the ones given. */
export async function judge(input: JudgeInput, commitments?: readonly Commitment[]) {
  await loadGrammarsFor([...input.patches.map((p) => p.patch), input.merge?.patch ?? '']);
  return brokenCommitments(input, commitments);
}

export function input(messages: ConversationMessage[], patches: Record<string, string>, merged: string): JudgeInput {
  return {
    conversation: messages,
    patches: Object.entries(patches).map(([agent, patch]) => ({ agent, patch })),
    merge: { status: 'clean', patch: merged },
    evaluations: [],
    bothPassed: false,
  };
}

const PROMISE = 'I will handle it.';

/** A task whose one message is agent1's promise and whose patch is also the merged code. */
export const promiseTask = (merged: string) => input(conversation(['agent1', PROMISE]), { agent1: merged }, merged);

/** The broken commitments of agent1's one promise in such a task, given its target instead of read from the words. */
export const checkPromise = (task: JudgeInput, target: Target) => judge(task, [{ messageId: 1, agent: 'agent1', quote: PROMISE, kind: 'promise', target }]);
