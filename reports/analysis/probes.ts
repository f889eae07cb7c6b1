// Belief probes (after CollabSim's probes of shared understanding): every K steps a model agent is
// asked, outside its conversation, which files and functions its partners are changing and whether
// their work will conflict with its own. Here: reading its answer, what a patch touches, and how
// the answer scores against the partners' patch at that moment and at the end. Pure functions; the
// formulas are in docs/metrics.md.
import { z } from 'zod';
import { patchFiles } from '../../judges/patch-lines.ts';

/** The longest answer read; a longer one is unparsable (a model may ramble, the store stays small). */
export const MAX_ANSWER_CHARS = 16_000;

const path = z.string().min(1).max(500);
const beliefSchema = z.strictObject({
  files: z.array(path).max(100),
  functions: z.array(z.string().min(1).max(200)).max(200),
  conflict: z.boolean(),
  confidence: z.number().min(0).max(1),
});

/** What an agent believes its partners are doing. */
export type Belief = z.infer<typeof beliefSchema>;

/** A probe's answer read as a belief, or why it could not be. */
export function parseBelief(text: string): { belief: Belief } | { unparsable: string } {
  if (text.length > MAX_ANSWER_CHARS) return { unparsable: `the answer is longer than ${MAX_ANSWER_CHARS} characters` };
  // A JSON object, bare or in a fenced block: from its first brace to its last.
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return { unparsable: 'the answer holds no JSON object' };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end + 1));
  } catch (error) {
    return { unparsable: `not valid JSON: ${(error as Error).message}` };
  }
  const parsed = beliefSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { unparsable: `${issue.path.map(String).join('.') || '(top)'}: ${issue.message}` };
  }
  const b = parsed.data;
  return { belief: { ...b, files: unique(b.files.map(repoPath)), functions: unique(b.functions.map(functionName).filter(Boolean)) } };
}

const unique = (items: string[]) => [...new Set(items)].sort();

/** A path as the patch names it: relative to the repository root. */
const repoPath = (p: string) =>
  p
    .trim()
    .replace(/^\/workspace\/repo\//, '')
    .replace(/^(?:\.\/|[ab]\/)/, '');

/** A function as the patch names it: its bare name (`Cache.get()` and `pkg::get` name `get`). */
const functionName = (name: string) => /([A-Za-z_$][\w$]*)\s*(?:\(\s*\))?\s*$/.exec(name.trim())?.[1] ?? '';

/** The files and functions a patch changes. */
export interface Touched {
  files: string[];
  functions: string[];
}

// A declaration: `def f`, `function f`, `func (r T) f`, `fn f`, `class C`, ... (git's hunk context
// line, or a changed line). Control words a method-like line may start with are not names.
const DECLARATION = /\b(?:def|class|function|func|fn|struct|impl|interface|trait|enum|type|mod)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/;
const METHOD = /^\s*(?:(?:public|private|protected|static|async|export|default|override|readonly)\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::[^{]*)?\{\s*$/;
const NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'with', 'elif', 'else', 'function']);

function declared(line: string): string | undefined {
  const name = DECLARATION.exec(line)?.[1] ?? METHOD.exec(line)?.[1];
  return name && !NOT_NAMES.has(name) ? name : undefined;
}

/**
 * What a patch touches: its files, and its functions: those a hunk's changes sit in (the context
 * line git prints after `@@`) and those a changed line declares.
 */
export function touchedBy(patch: string): Touched {
  const files = new Set<string>();
  const functions = new Set<string>();
  for (const file of patchFiles(patch)) {
    files.add(file.path);
    for (const hunk of file.hunks) {
      const name = declared(hunk.context);
      if (name) functions.add(name);
    }
    for (const line of [...file.added, ...file.removed]) {
      const name = declared(line.text);
      if (name) functions.add(name);
    }
  }
  return { files: [...files].sort(), functions: [...functions].sort() };
}

/** What several patches touch together. */
export function together(touched: readonly Touched[]): Touched {
  return { files: unique(touched.flatMap((t) => t.files)), functions: unique(touched.flatMap((t) => t.functions)) };
}

/** How a named set matches a touched set; null where the ratio has no denominator. */
export interface SetScore {
  precision: number | null;
  recall: number | null;
  /** |named ∩ touched| / |named ∪ touched|; 1 when both are empty (nothing named, nothing touched). */
  jaccard: number;
}

export function setScore(named: readonly string[], touched: readonly string[]): SetScore {
  const t = new Set(touched);
  const n = new Set(named);
  const both = [...n].filter((x) => t.has(x)).length;
  const union = new Set([...n, ...t]).size;
  return {
    precision: n.size === 0 ? null : both / n.size,
    recall: t.size === 0 ? null : both / t.size,
    jaccard: union === 0 ? 1 : both / union,
  };
}

/** One probe as stored (harness/store/probes.ts). */
export interface StoredProbe {
  agentId: string;
  model: string;
  /** Steps the agent had taken when it was asked. */
  step: number;
  status: 'answered' | 'unparsable' | 'failed';
  belief: Belief | null;
  /** What its partners' patches touched when it was asked. */
  partnersThen: Touched;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

export interface ScoredProbe {
  agentId: string;
  model: string;
  step: number;
  status: StoredProbe['status'];
  confidence: number | null;
  /** Against the partners' patches when asked; null for a probe without a belief. */
  now: { files: SetScore; functions: SetScore } | null;
  /** Against the partners' final patches. */
  final: { files: SetScore; functions: SetScore } | null;
  /** The predicted conflict matched the merge (null: no belief, or no merge). */
  conflictRight: boolean | null;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

/** What the scoring needs of a finished task: each agent's final patch and whether the plain merge conflicted. */
export interface ProbedTask {
  agents: { agentId: string; patch: string }[];
  /** The naive git merge of the patches conflicted; null: no merge was made. */
  conflicted: boolean | null;
  probes: StoredProbe[];
}

/** Each probe of a task, scored. Its partners are every other agent of the task, their patches taken together. */
export function scoreProbes(task: ProbedTask): ScoredProbe[] {
  const finalOf = new Map(task.agents.map((a) => [a.agentId, touchedBy(a.patch)]));
  return task.probes.map((p) => {
    const final = together(task.agents.filter((a) => a.agentId !== p.agentId).map((a) => finalOf.get(a.agentId)!));
    const b = p.belief;
    const against = (t: Touched) => (b ? { files: setScore(b.files, t.files), functions: setScore(b.functions, t.functions) } : null);
    return {
      agentId: p.agentId,
      model: p.model,
      step: p.step,
      status: p.status,
      confidence: b?.confidence ?? null,
      now: against(p.partnersThen),
      final: against(final),
      conflictRight: b && task.conflicted !== null ? b.conflict === task.conflicted : null,
      costUsd: p.costUsd,
      inputTokens: p.inputTokens,
      outputTokens: p.outputTokens,
    };
  });
}
