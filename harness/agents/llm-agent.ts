// The LLM agent: a small loop in the spirit of mini-swe-agent. Each step: deliver partners'
// messages, ask the model, run the tools it called in the sandbox, feed the results back.
import type { Agent, AgentContext, AgentOutcome } from './types.ts';
import type { ChatMessage, Model, ModelResponse, ToolSpec, Usage } from '../models/types.ts';
import { coopPrompt, soloPrompt } from '../../tasks/prompts.ts';
import { bashTool } from './tools/bash.ts';
import { createEditorTool } from './tools/editor.ts';
import { sendMessageTool } from './tools/send-message.ts';
import { finishTool } from './tools/finish.ts';
import { parseArguments, toolSpec, type Tool, type ToolResult } from './tools/tool.ts';
import { formatIncoming } from '../messaging/bus.ts';
import { ModelError } from '../models/index.ts';
import { errorMessage } from '../errors.ts';

export const DEFAULT_MAX_STEPS = 100;
/** Compact the conversation when a prompt uses this share of the context window. */
const COMPACT_AT = 0.8;

const SYSTEM_PROMPT = `You are an expert software engineer working in a sandboxed Linux container through tools. Read the code before you change it, make focused changes, and check your work by running it. Call exactly the tools you need; when the task is complete, call finish.`;

const NO_TOOL_CALL = 'Your reply called no tool. Continue the work with a tool call, or call finish if you are done.';

const SUMMARIZE = `Your conversation is about to exceed the context window. Write a summary that lets you continue without it: what the task is, what you have done (files and line ranges changed, commands run and what they showed), everything agreed with colleagues (exact names, signatures, line ranges, who does what), and what remains to do. Reply with the summary only.`;

export interface ModelCallRecord {
  agentId: string;
  model: string;
  usage: Usage;
}

export interface LlmAgentOptions {
  maxSteps: number;
  /** Called after every model call: cost accounting and the store. */
  onModelCall?: (call: ModelCallRecord) => void;
}

export class LlmAgent implements Agent {
  constructor(
    readonly model: string,
    private readonly llm: Model,
    private readonly options: LlmAgentOptions,
  ) {}

  async run(context: AgentContext): Promise<AgentOutcome> {
    const { trajectory, signal } = context;
    const tools: Tool[] = [bashTool, createEditorTool(), ...(context.mailbox ? [sendMessageTool] : []), finishTool];
    const specs = tools.map(toolSpec);
    const taskPrompt = context.partners.length > 0
      ? coopPrompt({ agentId: context.agentId, features: context.features, partners: context.partners, messaging: context.mailbox !== undefined, gitRemotes: context.gitRemotes })
      : soloPrompt({ agentId: context.agentId, features: context.features, partners: [], messaging: false });
    let history: ChatMessage[] = [{ role: 'user', content: taskPrompt }];
    let lastInputTokens = 0;

    for (let step = 0; step < this.options.maxSteps; step++) {
      signal.throwIfAborted();
      const incoming = context.mailbox?.take() ?? [];
      if (incoming.length > 0) {
        const text = incoming.map(formatIncoming).join('\n\n');
        history.push({ role: 'user', content: text });
        trajectory.record({ kind: 'message', name: 'received', output: text });
      }
      if (lastInputTokens > COMPACT_AT * this.llm.contextWindow) {
        history = await this.compact(history, taskPrompt, context);
      }

      let response: ModelResponse;
      try {
        response = await this.complete(context, { messages: history, tools: specs });
      } catch (error) {
        // The provider counted more tokens than we estimated: compact once and ask again.
        if (!(error instanceof ModelError && error.kind === 'context_too_long') || history.length <= 1) throw error;
        history = await this.compact(history.slice(0, -1), taskPrompt, context);
        response = await this.complete(context, { messages: history, tools: specs });
      }
      lastInputTokens = response.usage.inputTokens;
      trajectory.record({ kind: 'model', output: response.content, input: response.toolCalls.length ? response.toolCalls : undefined });
      history.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
      if (response.toolCalls.length === 0) {
        history.push({ role: 'user', content: NO_TOOL_CALL });
        continue;
      }

      let finished = false;
      for (const call of response.toolCalls) {
        const tool = tools.find((t) => t.name === call.name);
        const result = await this.runTool(tool, call.name, call.arguments, context);
        trajectory.record({ kind: 'tool', name: call.name, input: call.arguments, output: result.output, exitCode: result.exitCode });
        history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.output });
        finished ||= result.finish === true;
      }
      if (finished) return { status: 'finished' };
    }
    return { status: 'step_limit', error: `stopped after ${this.options.maxSteps} steps` };
  }

  private async runTool(tool: Tool | undefined, name: string, rawArguments: string, context: AgentContext): Promise<ToolResult> {
    if (!tool) return { output: `Error: there is no tool named "${name}"; use one of the tools you were given`, exitCode: 1 };
    const parsed = parseArguments(tool, rawArguments);
    if ('error' in parsed) return { output: `Error: ${parsed.error}`, exitCode: 1 };
    try {
      return await tool.run(parsed.args, { sandbox: context.sandbox, mailbox: context.mailbox, signal: context.signal });
    } catch (error) {
      // What the agent asked for went wrong (a file too large to read, a directory given as a file):
      // the model is told and carries on. A stop or a failing engine ends the agent.
      if (context.signal.aborted || context.isInfrastructureError(error)) throw error;
      return { output: `Error: ${errorMessage(error)}`, exitCode: 1 };
    }
  }

  private async complete(context: AgentContext, request: { messages: ChatMessage[]; tools?: ToolSpec[] }): Promise<ModelResponse> {
    const response = await this.llm.complete({ system: SYSTEM_PROMPT, ...request, signal: context.signal });
    this.options.onModelCall?.({ agentId: context.agentId, model: this.llm.id, usage: response.usage });
    return response;
  }

  /** Replaces the history by the task and a summary of the work so far; the trajectory keeps everything. */
  private async compact(history: ChatMessage[], taskPrompt: string, context: AgentContext): Promise<ChatMessage[]> {
    const summary = await this.complete(context, { messages: [...history, { role: 'user', content: SUMMARIZE }] });
    context.trajectory.record({ kind: 'note', name: 'compaction', output: summary.content });
    return [{ role: 'user', content: `${taskPrompt}\n\n## Your work so far (earlier steps were summarised to fit the context window)\n\n${summary.content}` }];
  }
}
