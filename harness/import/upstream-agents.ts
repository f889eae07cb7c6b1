// One agent's trajectory as each CooperBench adapter leaves it (runner/coop.py writes the adapter's
// `messages` into agent<feature>_traj.json): its steps with their commands and times, its model
// calls' usage, and when it sent each message.
// - mini_swe_agent_v2 (agents/mini_swe_agent_v2/models/litellm_model.py `query`, models/utils/
//   actions_toolcall.py): an assistant message per model call, with `tool_calls`, `extra.actions`
//   (bash `command`, send_message `recipient`/`content`), `extra.cost`, `extra.response.usage` and
//   `extra.timestamp` (time.time()); a `tool` message per action with `extra.raw_output`,
//   `extra.returncode` and `extra.timestamp`.
// - mini_swe_agent (v1): {role, content} messages, commands in ```bash blocks, no times.
// - claude_code (agents/claude_code/adapter.py, parsers.py): the trajectory is parse_session_jsonl's
//   {role, content} without times; the raw session log agent<id>_session.jsonl has the times, the
//   tool calls and results; agent<id>_stream.jsonl's `result` event says which limit ended it.
// - openhands_sdk (agents/openhands_agent_sdk/adapter.py event_callback): one {step, event_type,
//   event: str(event)} per event, every event counted as a step.
import type { AgentStatus } from '../agents/types.ts';
import type { TrajectoryStep } from '../agents/trajectory.ts';
import type { ImportedUsage } from '../store/imported-task.ts';
import { boundText } from '../errors.ts';
import { LIMITS, readJsonLines } from './log-files.ts';
import { epochMs } from './time-zone.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const MAX_OUTPUT = 16 * 1024;

/** A step before times are settled: `atMs` undefined takes the time of the step before it. */
type RawStep = Omit<TrajectoryStep, 'index' | 'at'> & { atMs?: number };

export interface AgentLog {
  steps: RawStep[];
  /** Per model call, when the trajectory records it (mini-swe-agent v2). */
  calls: (Omit<ImportedUsage, 'at'> & { atMs?: number })[];
  /** Messages the agent sent (send_message tool calls), with when. */
  sends: { to: string; content: string; atMs: number }[];
  /** Epoch times seen, for inferring the zone of result.json's local times. */
  epochs: number[];
  /** What ended a Claude Code agent that hit a limit (its stream's `result` subtype). */
  endedBy?: string;
  /** Files read besides the trajectory. */
  read: string[];
}

const emptyLog = (): AgentLog => ({ steps: [], calls: [], sends: [], epochs: [], read: [] });

function note(log: AgentLog, step: RawStep): void {
  log.steps.push(step);
  if (step.atMs !== undefined) log.epochs.push(step.atMs);
}

function miniSweV2(messages: unknown[], agent: string, model: string): AgentLog {
  const log = emptyLog();
  const actions = new Map<string, { name: string; input: Obj }>();
  for (const entry of messages) {
    const m = obj(entry);
    const extra = obj(m.extra);
    const role = str(m.role).slice(0, 40) || 'entry';
    const atMs = epochMs(extra.timestamp);
    if (role === 'assistant') {
      const acts = Array.isArray(extra.actions) ? extra.actions.map(obj) : [];
      const input = acts.map(({ tool_name, tool_call_id, ...args }) => {
        const name = str(tool_name) || 'bash';
        if (typeof tool_call_id === 'string') actions.set(tool_call_id, { name, input: args });
        if (name === 'send_message' && atMs !== undefined) log.sends.push({ to: str(args.recipient), content: str(args.content), atMs });
        return { name, arguments: args };
      });
      note(log, {
        kind: 'model',
        name: extra.summary ? 'summary' : undefined,
        output: boundText(str(m.content), MAX_OUTPUT),
        input: input.length ? input : undefined,
        atMs,
      });
      const usage = obj(obj(extra.response).usage);
      if (typeof extra.cost === 'number' || Object.keys(usage).length) {
        log.calls.push({
          agent,
          model,
          atMs,
          costUsd: num(extra.cost),
          // OpenAI-style usage: prompt_tokens already counts the cached part, as coop-bench's input does.
          inputTokens: num(usage.prompt_tokens ?? usage.input_tokens),
          outputTokens: num(usage.completion_tokens ?? usage.output_tokens),
          cacheReadTokens: num(obj(usage.prompt_tokens_details).cached_tokens ?? usage.cache_read_input_tokens),
          cacheWriteTokens: num(usage.cache_creation_input_tokens),
        });
      }
    } else if (role === 'tool' || 'raw_output' in extra) {
      const action = actions.get(str(m.tool_call_id));
      const code = extra.returncode;
      note(log, {
        kind: 'tool',
        name: action?.name ?? 'bash',
        input: action?.input,
        output: boundText(str(extra.raw_output ?? m.content), MAX_OUTPUT),
        exitCode: typeof code === 'number' && Number.isInteger(code) ? code : undefined,
        atMs,
      });
    } else {
      note(log, { kind: 'note', name: role, output: boundText(str(m.content), MAX_OUTPUT), atMs });
    }
  }
  return log;
}

const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/;

/** {role, content} messages (mini-swe-agent v1, or a Claude Code trajectory without its session log). */
function chatMessages(messages: unknown[]): AgentLog {
  const log = emptyLog();
  for (const entry of messages) {
    const m = obj(entry);
    const role = str(m.role).slice(0, 40) || 'entry';
    const content = str(m.content ?? entry);
    const atMs = epochMs(m.timestamp);
    const command = role === 'assistant' ? BASH_BLOCK.exec(content)?.[1] : undefined;
    note(log, {
      kind: role === 'assistant' ? 'model' : 'note',
      name: role === 'assistant' ? undefined : role,
      output: boundText(content, MAX_OUTPUT),
      input: command ? [{ name: 'bash', arguments: { command } }] : undefined,
      atMs,
    });
  }
  return log;
}

function blocks(content: unknown): Obj[] {
  return Array.isArray(content) ? content.map(obj) : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
}

/** Claude Code's session log (agents/claude_code/parsers.py reads the same events, sorted by timestamp). */
function claudeSession(events: Obj[]): AgentLog {
  const log = emptyLog();
  const calls = new Map<string, { name: string; input: unknown }>();
  const sorted = [...events].sort((a, b) => str(a.timestamp).localeCompare(str(b.timestamp)));
  for (const event of sorted) {
    const message = obj(event.message);
    const role = str(message.role);
    const atMs = epochMs(event.timestamp);
    const content = blocks(message.content);
    if (role === 'assistant') {
      const uses = content.filter((b) => b.type === 'tool_use');
      for (const b of uses) calls.set(str(b.id), { name: str(b.name), input: b.input });
      const said = content
        .filter((b) => b.type === 'text')
        .map((b) => str(b.text))
        .join('\n');
      note(log, {
        kind: 'model',
        output: boundText(said, MAX_OUTPUT),
        input: uses.length ? uses.map((b) => ({ name: str(b.name), arguments: b.input })) : undefined,
        atMs,
      });
    } else if (role === 'user') {
      const results = content.filter((b) => b.type === 'tool_result');
      for (const r of results) {
        const call = calls.get(str(r.tool_use_id));
        const inner = Array.isArray(r.content) ? r.content.map((b) => str(obj(b).text)).join('\n') : str(r.content);
        note(log, {
          kind: 'tool',
          name: call?.name || 'unknown',
          input: call?.input,
          output: boundText(inner, MAX_OUTPUT),
          exitCode: r.is_error === true ? 1 : 0,
          atMs,
        });
      }
      if (results.length === 0) note(log, { kind: 'note', name: 'user', output: boundText(content.map((b) => str(b.text)).join('\n'), MAX_OUTPUT), atMs });
    } else if (role === 'system') {
      note(log, { kind: 'note', name: 'system', output: boundText(content.map((b) => str(b.text)).join('\n'), MAX_OUTPUT), atMs });
    }
  }
  return log;
}

const EVENT_TIME = /\btimestamp='(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)'/;

/** OpenHands events as its adapter keeps them: only the type and str(event); its times are UTC. */
function openHandsEvents(messages: unknown[]): AgentLog {
  const log = emptyLog();
  for (const entry of messages) {
    const e = obj(entry);
    const type = str(e.event_type).slice(0, 80) || 'event';
    const text = str(e.event);
    const time = EVENT_TIME.exec(text)?.[1];
    const atMs = time ? epochMs(`${time}Z`) : undefined;
    const kind: TrajectoryStep['kind'] = /Observation|Error/.test(type) ? 'tool' : /Action/.test(type) ? 'model' : /Message/.test(type) ? 'message' : 'note';
    const input = e.to !== undefined ? { to: str(e.to), content: str(e.msg) } : undefined;
    note(log, { kind, name: type, input, output: boundText(text, MAX_OUTPUT), atMs });
  }
  return log;
}

export interface AgentFiles {
  dir: string;
  /** The agent's id in the run (agent1, agent2, agent for Solo): names Claude Code's extra logs. */
  agentId: string;
}

/** The trajectory's messages read the way the framework that wrote them means them. */
export function readAgentLog(framework: string, messages: unknown[], files: AgentFiles, agent: string, model: string, notes: string[]): AgentLog {
  if (framework === 'openhands_sdk') return openHandsEvents(messages);
  if (framework === 'claude_code') {
    const session = readJsonLines(files.dir, `${files.agentId}_session.jsonl`, LIMITS.largeJson);
    const log = session.ok ? claudeSession(session.value) : chatMessages(messages);
    if (session.ok) log.read.push(`${files.agentId}_session.jsonl`);
    else notes.push(`${agent}: ${session.problem}: steps from the trajectory, without times or commands`);
    const stream = readJsonLines(files.dir, `${files.agentId}_stream.jsonl`, LIMITS.largeJson);
    if (stream.ok) {
      log.read.push(`${files.agentId}_stream.jsonl`);
      log.endedBy = str([...stream.value].reverse().find((e) => e.type === 'result')?.subtype) || undefined;
    }
    return log;
  }
  const v2 = messages.some((m) => 'extra' in obj(m) || 'tool_calls' in obj(m));
  return v2 ? miniSweV2(messages, agent, model) : chatMessages(messages);
}

/** mini_swe_agent_v2/config/mini.yaml: step_limit 0 (none), cost_limit 3. */
const MINI_SWE_COST_LIMIT = 3;

/**
 * The adapters' exit statuses in coop-bench's terms: Submitted; LimitsExceeded (mini-swe-agent:
 * the shipped config has only a cost limit, so a step limit when the cost stayed under it; Claude
 * Code: its result subtype, max_turns or budget); OpenHands' CostLimitExceeded; anything else an error.
 */
export function agentStatus(
  status: string | null | undefined,
  framework: string,
  cost: number,
  endedBy: string | undefined,
): { status: AgentStatus; why?: string } {
  if (status === 'Submitted') return { status: 'finished' };
  if (status === 'CostLimitExceeded') return { status: 'cost_limit', why: `cost $${cost.toFixed(2)} reached the adapter's cost limit` };
  if (status !== 'LimitsExceeded') return { status: 'error' };
  if (framework === 'claude_code') {
    if (endedBy?.includes('budget')) return { status: 'cost_limit', why: `Claude Code ended with ${endedBy}` };
    return {
      status: 'step_limit',
      why: endedBy ? `Claude Code ended with ${endedBy}` : 'Claude Code hit a limit (its stream log does not say which: taken as --max-turns)',
    };
  }
  return cost >= MINI_SWE_COST_LIMIT
    ? { status: 'cost_limit', why: `cost $${cost.toFixed(2)} reached mini.yaml's cost_limit of $${MINI_SWE_COST_LIMIT}` }
    : {
        status: 'step_limit',
        why: `cost $${cost.toFixed(2)} stayed under mini.yaml's cost_limit of $${MINI_SWE_COST_LIMIT}: a step_limit from the run's config`,
      };
}

/** Steps with times: an entry without one takes the time before it (the task's start for the first). */
export function settleSteps(steps: RawStep[], startMs: number): TrajectoryStep[] {
  let at = startMs;
  return steps.slice(0, LIMITS.steps).map(({ atMs, ...step }, index) => {
    at = atMs ?? at;
    return { ...step, index, at: new Date(at).toISOString() };
  });
}
