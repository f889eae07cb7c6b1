// How each agent of a Coop task worked, not only what came of it (after Collab-Overcooked's process
// measures): how much of its editing survived, how long it worked before talking and before
// editing, who opened the conversation, how often and how fast messages were answered, and when
// the two agents first worked in the same file. Pure functions over the records the harness
// passes in; the formulas are in docs/metrics.md.
import { proportion, type Proportion } from '../stats.ts';

/** One recorded step of an agent (its trajectory). */
export interface ProcessStep {
  at: string;
  kind: 'tool' | 'model' | 'message' | 'note';
  name?: string;
  input?: unknown;
}

export interface ProcessAgent {
  agentId: string;
  steps: ProcessStep[];
  /** Its final patch (git diff against the base). */
  patch: string;
}

export interface ProcessMessage {
  from: string;
  to: string[];
  sentAt: string;
  /** Per recipient: when it reached the recipient (null: never). */
  deliveredAt: Record<string, string | null>;
}

/** What the measures read of one Coop task. */
export interface ProcessRecord {
  taskId: number;
  agents: ProcessAgent[];
  messages: ProcessMessage[];
}

export interface AgentProcess {
  agentId: string;
  edits: number;
  /** Edits whose added text is in the final patch. */
  survivingEdits: number;
  /** survivingEdits / edits; null without edits. */
  editEfficiency: number | null;
  /** Tool calls before its first message; null: it sent none. */
  stepsBeforeFirstMessage: number | null;
  /** Tool calls before its first edit; null: it made none. */
  stepsBeforeFirstEdit: number | null;
}

export interface TaskProcess {
  taskId: number;
  agents: AgentProcess[];
  /** Sender of the task's first message; null: nobody wrote. */
  firstMessageBy: string | null;
  /** Messages times their recipients. */
  deliveries: number;
  /** Deliveries the recipient answered. */
  answered: number;
  /** answered / deliveries; null without messages. */
  replyShare: number | null;
  /** Median seconds from a delivery to the recipient's answer; null without answers. */
  medianReplySeconds: number | null;
  /** Seconds from the task's first step until both agents had edited one same file; null: never. */
  firstCollisionSeconds: number | null;
  /** Files both agents edited by the end. */
  sharedFiles: string[];
  /** After each edit (seconds since the first step), how many files both had edited by then. */
  overlap: { seconds: number; files: number }[];
}

/** An edit an agent made with a tool: the file and the text it put there. */
export interface Edit {
  at: string;
  path: string;
  added: string;
}

const stripRepo = (path: string) => path.replace(/^\/workspace\/repo\//, '').replace(/^\.\//, '');

function parseInput(input: unknown): Record<string, unknown> | undefined {
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * The edit a tool step made, if it is one: the harness's editor (create, str_replace, insert) and
 * the agent CLIs' edit tools (Claude Code's Write, Edit, MultiEdit). Edits made through a shell
 * command are not seen.
 */
export function editOf(step: ProcessStep): Edit | undefined {
  if (step.kind !== 'tool' || !step.name) return undefined;
  const input = parseInput(step.input);
  if (!input) return undefined;
  const path = text(input.path) || text(input.file_path);
  if (!path) return undefined;
  const at = step.at;
  if (step.name === 'str_replace_based_edit_tool') {
    const added = { create: input.file_text, str_replace: input.new_str, insert: input.new_str }[text(input.command)];
    return added === undefined ? undefined : { at, path: stripRepo(path), added: text(added) };
  }
  if (step.name === 'Write') return { at, path: stripRepo(path), added: text(input.content) };
  if (step.name === 'Edit') return { at, path: stripRepo(path), added: text(input.new_string) };
  if (step.name === 'MultiEdit' && Array.isArray(input.edits)) {
    return { at, path: stripRepo(path), added: input.edits.map((e) => text(parseInput(e)?.new_string)).join('\n') };
  }
  return undefined;
}

/** Added lines of a patch per file (trimmed, blank lines left out). */
export function addedLines(patch: string): Map<string, Set<string>> {
  const files = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of patch.split('\n')) {
    const header = /^\+\+\+ (?:b\/)?(.+)$/.exec(line);
    if (header) {
      current = header[1] === '/dev/null' ? undefined : new Set();
      if (current) files.set(header[1]!, current);
    } else if (current && line.startsWith('+')) {
      const content = line.slice(1).trim();
      if (content) current.add(content);
    }
  }
  return files;
}

/** An edit survives when at least one line it added (or, adding nothing, its file) is in the final patch. */
function survives(edit: Edit, final: Map<string, Set<string>>): boolean {
  const lines = final.get(edit.path);
  if (!lines) return false;
  const added = edit.added
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return added.length === 0 || added.some((l) => lines.has(l));
}

const isSend = (step: ProcessStep) => step.kind === 'tool' && (step.name === 'send_message' || (step.name?.endsWith('__send_message') ?? false));

/** Tool calls the agent made before the first one that satisfies `hit`; null: none does. */
function actionsBefore(steps: ProcessStep[], hit: (step: ProcessStep) => boolean): number | null {
  const actions = steps.filter((s) => s.kind === 'tool');
  const index = actions.findIndex(hit);
  return index === -1 ? null : index;
}

export function agentProcess(agent: ProcessAgent): AgentProcess {
  const edits = agent.steps.flatMap((s) => editOf(s) ?? []);
  const final = addedLines(agent.patch);
  const surviving = edits.filter((e) => survives(e, final)).length;
  return {
    agentId: agent.agentId,
    edits: edits.length,
    survivingEdits: surviving,
    editEfficiency: edits.length === 0 ? null : surviving / edits.length,
    stepsBeforeFirstMessage: actionsBefore(agent.steps, isSend),
    stepsBeforeFirstEdit: actionsBefore(agent.steps, (s) => editOf(s) !== undefined),
  };
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Each delivery, answered when its recipient later sends its sender a message: the first such one. */
function replies(messages: ProcessMessage[]): { deliveries: number; delays: number[] } {
  let deliveries = 0;
  const delays: number[] = [];
  for (const m of messages) {
    for (const recipient of m.to) {
      deliveries++;
      const delivered = m.deliveredAt[recipient];
      if (!delivered) continue;
      const answer = messages.find((r) => r.from === recipient && r.to.includes(m.from) && Date.parse(r.sentAt) >= Date.parse(delivered));
      if (answer) delays.push((Date.parse(answer.sentAt) - Date.parse(delivered)) / 1000);
    }
  }
  return { deliveries, delays };
}

/** When the agents' edited files first met, and how many they shared after each edit. */
function overlapOverTime(agents: ProcessAgent[], start: number): Pick<TaskProcess, 'firstCollisionSeconds' | 'sharedFiles' | 'overlap'> {
  const events = agents
    .flatMap((a) => a.steps.flatMap((s) => [editOf(s) ?? []].flat().map((e) => ({ agent: a.agentId, time: Date.parse(e.at), path: e.path }))))
    .sort((x, y) => x.time - y.time);
  const touched = new Map(agents.map((a) => [a.agentId, new Set<string>()]));
  const shared = () => {
    const [first, ...others] = [...touched.values()];
    return [...(first ?? [])].filter((f) => others.length > 0 && others.some((o) => o.has(f)));
  };
  let firstCollisionSeconds: number | null = null;
  const overlap: TaskProcess['overlap'] = [];
  for (const e of events) {
    touched.get(e.agent)!.add(e.path);
    const files = shared().length;
    const seconds = (e.time - start) / 1000;
    overlap.push({ seconds, files });
    if (files > 0 && firstCollisionSeconds === null) firstCollisionSeconds = seconds;
  }
  return { firstCollisionSeconds, sharedFiles: shared().sort(), overlap };
}

export function taskProcess(record: ProcessRecord): TaskProcess {
  const times = record.agents.flatMap((a) => a.steps.map((s) => Date.parse(s.at))).filter(Number.isFinite);
  const start = times.length > 0 ? Math.min(...times) : 0;
  const ordered = [...record.messages].sort((a, b) => Date.parse(a.sentAt) - Date.parse(b.sentAt));
  const { deliveries, delays } = replies(ordered);
  return {
    taskId: record.taskId,
    agents: record.agents.map(agentProcess),
    firstMessageBy: ordered[0]?.from ?? null,
    deliveries,
    answered: delays.length,
    replyShare: deliveries === 0 ? null : delays.length / deliveries,
    medianReplySeconds: median(delays),
    ...overlapOverTime(record.agents, start),
  };
}

const present = (values: (number | null)[]) => values.filter((v): v is number => v !== null);

/** The measures over a group of tasks (a team under one condition), as the report shows them. */
export interface ProcessSummary {
  tasks: number;
  /** Edits that survived into their agent's final patch, over all edits (pooled). */
  survivingEdits: Proportion | null;
  medianStepsBeforeFirstMessage: number | null;
  medianStepsBeforeFirstEdit: number | null;
  /** Tasks whose first message came from agent1, agent2, ... */
  firstMessageBy: Record<string, number>;
  /** Deliveries answered, over all deliveries (pooled). */
  answered: Proportion | null;
  medianReplySeconds: number | null;
  /** Tasks where the agents edited one same file. */
  collided: Proportion | null;
  medianFirstCollisionSeconds: number | null;
}

const pooled = (k: number, n: number) => (n === 0 ? null : proportion(k, n));

export function summarizeProcess(tasks: TaskProcess[]): ProcessSummary {
  const agents = tasks.flatMap((t) => t.agents);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const firstMessageBy: Record<string, number> = {};
  for (const t of tasks) if (t.firstMessageBy) firstMessageBy[t.firstMessageBy] = (firstMessageBy[t.firstMessageBy] ?? 0) + 1;
  return {
    tasks: tasks.length,
    survivingEdits: pooled(sum(agents.map((a) => a.survivingEdits)), sum(agents.map((a) => a.edits))),
    medianStepsBeforeFirstMessage: median(present(agents.map((a) => a.stepsBeforeFirstMessage))),
    medianStepsBeforeFirstEdit: median(present(agents.map((a) => a.stepsBeforeFirstEdit))),
    firstMessageBy,
    answered: pooled(sum(tasks.map((t) => t.answered)), sum(tasks.map((t) => t.deliveries))),
    medianReplySeconds: median(present(tasks.map((t) => t.medianReplySeconds))),
    collided: pooled(tasks.filter((t) => t.firstCollisionSeconds !== null).length, tasks.length),
    medianFirstCollisionSeconds: median(present(tasks.map((t) => t.firstCollisionSeconds))),
  };
}
