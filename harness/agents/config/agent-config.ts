// The LLM agent's configuration as a file, in the spirit of mini-swe-agent's config: the system and
// task prompt templates, the tools, the step/cost/time limits and the compaction threshold. Its hash
// is stored with every task, so that runs made with different prompts are never compared silently.
// A template is text, or {"file": "<path relative to the configuration>"} (one final newline of the
// file is not part of the template).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { UserError } from '../../errors.ts';
import { PROMPT_VALUE_NAMES, promptValues, type PromptContext } from '../../../tasks/prompts.ts';
import { Template } from './template.ts';

export const DEFAULT_AGENT_CONFIG = path.join(path.dirname(fileURLToPath(import.meta.url)), 'default.json');

export const TOOL_NAMES = ['bash', 'str_replace_based_edit_tool', 'send_message', 'finish'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

const template = z.union([z.string(), z.strictObject({ file: z.string().min(1) })]);
const fileSchema = z.strictObject({
  system_template: template,
  solo_template: template,
  coop_template: template,
  tools: z
    .array(z.enum(TOOL_NAMES))
    .min(1)
    .refine((tools) => tools.includes('finish'), 'must include finish (an agent without it can only stop at a limit)'),
  step_limit: z.number().int().positive(),
  cost_limit_usd: z.number().positive().nullable(),
  time_limit_seconds: z.number().int().positive().nullable(),
  compaction: z.strictObject({
    /** Compact when a prompt would use this share of the window the prompt may use. */
    threshold: z.number().gt(0).max(0.95),
    summary_template: template,
    resume_template: template,
  }),
  messages: z.strictObject({
    no_tool_call: template,
    truncated_reply: template,
    truncated_call: template,
  }),
  /** The belief probe's question (--probe); it may name {{partners}}. Optional: without it --probe is refused. */
  probe_template: template.optional(),
});

export interface AgentConfig {
  /** The file it was read from. */
  source: string;
  /** sha256 of everything that decides what the agent is told and may do (not of the file's layout). */
  hash: string;
  system: Template;
  solo: Template;
  coop: Template;
  tools: ToolName[];
  stepLimit: number;
  costLimitUsd: number | null;
  timeLimitSeconds: number | null;
  compaction: { threshold: number; summary: Template; resume: Template };
  messages: { noToolCall: Template; truncatedReply: Template; truncatedCall: Template };
  /** The belief probe's question, asked outside the conversation (--probe). */
  probe?: Template;
}

/** What the probe's question may name: the partners, as `agent2` or `agent2 and agent3`. */
export const PROBE_VALUE_NAMES = ['partners'] as const;

/** What --max-steps and the like change: applied before the hash, so the hash says what ran. */
export interface AgentConfigOverrides {
  stepLimit?: number;
}

export function loadAgentConfig(file = DEFAULT_AGENT_CONFIG, overrides: AgentConfigOverrides = {}): AgentConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(
      code
        ? `cannot read agent configuration ${file} (${code}): check the path given to --agent-config`
        : `bad agent configuration ${file}: not valid JSON (${(error as Error).message})`,
    );
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `bad agent configuration ${file}: ${issue.path.map(String).join('.') || '(top)'}: ${issue.message} (see ${DEFAULT_AGENT_CONFIG} for the format)`,
    );
  }
  const raw = parsed.data;
  const text = (field: z.infer<typeof template>, name: string): string => {
    if (typeof field === 'string') return field;
    const where = path.resolve(path.dirname(file), field.file);
    try {
      return readFileSync(where, 'utf8').replace(/\n$/, '');
    } catch (error) {
      throw new UserError(`bad agent configuration ${file}: ${name}: cannot read ${where} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
    }
  };
  const make = (field: z.infer<typeof template>, name: string, names: readonly string[]) => {
    try {
      return new Template(text(field, name), `${name} in ${file}`, names);
    } catch (error) {
      if (error instanceof UserError) throw error;
      throw new UserError(`bad agent configuration: ${(error as Error).message}`);
    }
  };
  const body = {
    system: make(raw.system_template, 'system_template', PROMPT_VALUE_NAMES),
    solo: make(raw.solo_template, 'solo_template', PROMPT_VALUE_NAMES),
    coop: make(raw.coop_template, 'coop_template', PROMPT_VALUE_NAMES),
    tools: raw.tools,
    stepLimit: overrides.stepLimit ?? raw.step_limit,
    costLimitUsd: raw.cost_limit_usd,
    timeLimitSeconds: raw.time_limit_seconds,
    compaction: {
      threshold: raw.compaction.threshold,
      summary: make(raw.compaction.summary_template, 'compaction.summary_template', []),
      resume: make(raw.compaction.resume_template, 'compaction.resume_template', ['task', 'summary']),
    },
    messages: {
      noToolCall: make(raw.messages.no_tool_call, 'messages.no_tool_call', []),
      truncatedReply: make(raw.messages.truncated_reply, 'messages.truncated_reply', ['max_output_tokens']),
      truncatedCall: make(raw.messages.truncated_call, 'messages.truncated_call', ['max_output_tokens']),
    },
    ...(raw.probe_template === undefined ? {} : { probe: make(raw.probe_template, 'probe_template', PROBE_VALUE_NAMES) }),
  };
  return { source: file, hash: configHash(body), ...body };
}

/**
 * The hash of the configuration's meaning: template texts (not file names), tools and limits. The
 * probe's question is left out: it never enters the agent's conversation.
 */
function configHash({ probe: _, ...body }: Omit<AgentConfig, 'source' | 'hash'>): string {
  const canonical = JSON.stringify(body, (_, value: unknown) => (value instanceof Template ? value.text : value));
  return createHash('sha256').update(canonical).digest('hex');
}

/** The first 12 hex digits: enough to tell configurations apart in a report. */
export const shortHash = (hash: string) => hash.slice(0, 12);

/** The system prompt and the task prompt an agent gets. */
export function agentPrompts(config: AgentConfig, context: PromptContext): { system: string; task: string } {
  const values = promptValues(context);
  return { system: config.system.render(values), task: (context.partners.length > 0 ? config.coop : config.solo).render(values) };
}
