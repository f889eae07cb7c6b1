// The LLM agent: a small loop in the spirit of mini-swe-agent. Each step: deliver partners'
// messages, ask the model, run the tools it called in the sandbox, feed the results back. What it is
// told and may do comes from its configuration (config/agent-config.ts).
//
// How it ends: `finished` when it calls finish; otherwise at a limit of its configuration
// (step_limit, cost_limit, time_limit), when its conversation no longer fits the window even after
// compaction (context_exhausted), when the model keeps cutting its output off (output_truncated) or
// when the provider refuses a request for what the conversation holds (model_rejected), or when the
// model declines on its provider's safety policy (refused: resending gets the same refusal, the
// provider says, so it is not nudged). All of these
// are the agent's outcome: its patch is taken and the task is scored. A provider that cannot be
// reached or keeps failing after the retries is thrown: that is the infrastructure's failure.
import type { Agent, AgentContext, AgentOutcome, ExtraTool, ProbeAnswer } from './types.ts';
import type { ChatMessage, CompletionRequest, Model, ModelResponse, ToolCall, ToolSpec, Usage } from '../models/types.ts';
import { bashTool } from './tools/bash.ts';
import { createEditorTool } from './tools/editor.ts';
import { sendMessageTool } from './tools/send-message.ts';
import { finishTool } from './tools/finish.ts';
import { defineTool, parseArguments, toolSpec, type Tool, type ToolResult } from './tools/tool.ts';
import { formatIncoming } from '../messaging/bus.ts';
import { FirstRequestRefused, INFRASTRUCTURE_KINDS, ModelError } from '../models/index.ts';
import { errorMessage } from '../errors.ts';
import { agentPrompts, loadAgentConfig, type AgentConfig, type ToolName } from './config/agent-config.ts';
import { cutPoints, elided, requestChars, TokenMeter } from './compaction.ts';

/** Truncated answers in a row after which the agent stops (output_truncated). */
const MAX_TRUNCATED_IN_A_ROW = 3;
/** Share of the window a summary request may fill when the agent compacts ahead of the window. */
const SUMMARY_BUDGET = 0.95;
/** After the provider found a prompt too long: smaller shares, one per retry, then context_exhausted. */
const RETRY_BUDGETS = [0.85, 0.7, 0.5];

export interface ModelCallRecord {
  agentId: string;
  model: string;
  usage: Usage;
  stopReason?: string;
}

export interface LlmAgentOptions {
  /** Default: the shipped configuration. */
  config?: AgentConfig;
  /** Called after every model call: cost accounting and the store. */
  onModelCall?: (call: ModelCallRecord) => void;
}

/** Ends the run with an outcome the agent is scored with. */
class AgentStop extends Error {
  constructor(readonly outcome: AgentOutcome) {
    super(outcome.error ?? outcome.status);
  }
}

function createTools(names: ToolName[], messaging: boolean): Tool[] {
  const make: Record<ToolName, () => Tool> = {
    bash: () => bashTool,
    str_replace_based_edit_tool: createEditorTool,
    send_message: () => sendMessageTool,
    finish: () => finishTool,
  };
  return names.filter((name) => name !== 'send_message' || messaging).map((name) => make[name]());
}

/** A tool the harness adds (a run condition's): it answers in text, an error as exit code 1. */
function fromExtra(extra: ExtraTool): Tool {
  return defineTool({
    name: extra.name,
    description: extra.description,
    schema: extra.schema,
    async run(args, { signal }) {
      const { output, isError } = await extra.run(args, signal);
      return isError ? { output, exitCode: 1 } : { output };
    },
  });
}

export class LlmAgent implements Agent {
  private readonly config: AgentConfig;

  constructor(
    readonly model: string,
    private readonly llm: Model,
    private readonly options: LlmAgentOptions = {},
  ) {
    this.config = options.config ?? loadAgentConfig();
  }

  async run(context: AgentContext): Promise<AgentOutcome> {
    try {
      return await new Conversation(this.config, this.llm, this.options, context).run();
    } catch (error) {
      if (error instanceof AgentStop) return error.outcome;
      throw error;
    }
  }
}

/** One agent's run: its history, its spending and its clock. */
class Conversation {
  private readonly tools: Tool[];
  private readonly specs: ToolSpec[];
  private readonly system: string;
  private readonly task: string;
  private readonly meter = new TokenMeter();
  private readonly started = Date.now();
  private history: ChatMessage[];
  private spentUsd = 0;

  constructor(
    private readonly config: AgentConfig,
    private readonly llm: Model,
    private readonly options: LlmAgentOptions,
    private readonly context: AgentContext,
  ) {
    this.tools = [...createTools(config.tools, context.mailbox !== undefined), ...(context.extraTools ?? []).map(fromExtra)];
    this.specs = this.tools.map(toolSpec);
    const prompts = agentPrompts(config, {
      agentId: context.agentId,
      features: context.features,
      partners: context.partners,
      messaging: context.mailbox !== undefined,
      gitRemotes: context.gitRemotes,
      partnerTools: context.extraTools?.map((t) => t.name),
    });
    this.system = prompts.system;
    this.task = prompts.task;
    this.history = [{ role: 'user', content: this.task }];
    context.trajectory.record({ kind: 'note', name: 'system_prompt', output: this.system });
    context.trajectory.record({ kind: 'note', name: 'task_prompt', output: this.task });
  }

  async run(): Promise<AgentOutcome> {
    const { trajectory, signal } = this.context;
    let truncatedInARow = 0;
    for (let step = 0; step < this.config.stepLimit; step++) {
      signal.throwIfAborted();
      this.checkClock();
      if (step > 0 && this.context.probe && step % this.context.probe.every === 0) await this.askProbe(step);
      const incoming = this.context.mailbox?.take() ?? [];
      if (incoming.length > 0) {
        const text = incoming.map(formatIncoming).join('\n\n');
        this.history.push({ role: 'user', content: text });
        trajectory.record({ kind: 'message', name: 'received', output: text });
      }

      const response = await this.nextAnswer();
      trajectory.record({ kind: 'model', output: response.content, input: response.toolCalls.length ? response.toolCalls : undefined });
      this.history.push({
        role: 'assistant',
        content: response.content,
        toolCalls: response.toolCalls,
        ...(response.replay ? { replay: response.replay } : {}),
      });

      truncatedInARow = response.truncated ? truncatedInARow + 1 : 0;
      if (truncatedInARow >= MAX_TRUNCATED_IN_A_ROW) {
        this.answerUnrun(response.toolCalls);
        return { status: 'output_truncated', error: `the model's output was cut off at the output limit ${MAX_TRUNCATED_IN_A_ROW} times in a row` };
      }
      if (response.toolCalls.length === 0) {
        this.nudge(response.truncated ? 'truncated_reply' : 'no_tool_call');
        continue;
      }
      // A reply cut off at the output limit may end in a call whose arguments are incomplete: it is
      // not run, and the model is told.
      const runnable = response.truncated ? response.toolCalls.slice(0, -1) : response.toolCalls;
      let finished = false;
      for (const call of runnable) finished = (await this.runCall(call)) || finished;
      if (response.truncated) this.answerUnrun(response.toolCalls.slice(-1));
      if (finished) return { status: 'finished' };
    }
    return { status: 'step_limit', error: `stopped after ${this.config.stepLimit} steps` };
  }

  /**
   * The belief probe: a separate call on a copy of the conversation with the probe's question at its
   * end. Its answer goes to the harness only: never into the history, the trajectory or a message;
   * its cost is not the agent's spending (the run counts it apart). A failed call is an answer too.
   */
  private async askProbe(step: number): Promise<void> {
    const { probe, partners, signal } = this.context;
    if (!probe || !this.config.probe || partners.length === 0) return;
    const question: ChatMessage = { role: 'user', content: this.config.probe.render({ partners: partners.join(' and ') }) };
    const request: CompletionRequest = { ...this.request(), messages: [...this.history, question], toolChoice: 'none', signal };
    let answer: ProbeAnswer;
    try {
      const response = await this.llm.complete(request);
      answer = { step, model: this.llm.id, text: response.content, usage: response.usage };
    } catch (error) {
      if (signal.aborted) throw error;
      answer = { step, model: this.llm.id, error: errorMessage(error) };
    }
    await probe.answered(answer);
  }

  /** The model's next answer, compacting first when the prompt would not fit. */
  private async nextAnswer(): Promise<ModelResponse> {
    const window = this.llm.contextWindow;
    const nearWindow = window !== undefined && this.meter.estimate(this.request()) > this.config.compaction.threshold * window;
    // The task prompt alone cannot be summarised: it is sent, and the provider decides.
    if (nearWindow && cutPoints(this.history).length > 0) {
      await this.compact(SUMMARY_BUDGET, 'the prompt is near the context window');
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.complete(this.request());
      } catch (error) {
        if (!this.learnOverflow(error, this.request())) throw error;
        if (attempt === RETRY_BUDGETS.length) {
          throw new AgentStop({ status: 'context_exhausted', error: 'the conversation did not fit the context window even after compaction' });
        }
        await this.compact(RETRY_BUDGETS[attempt]!, 'the provider found the prompt too long');
      }
    }
  }

  /** Whether `error` is a prompt over the window; if so the estimate learns from the provider's figures. */
  private learnOverflow(error: unknown, request: CompletionRequest): boolean {
    if (!(error instanceof ModelError && error.kind === 'context_too_long')) return false;
    if (error.overflow?.prompt) this.meter.observe(requestChars(request), error.overflow.prompt);
    this.context.trajectory.record({ kind: 'note', name: 'context_overflow', output: error.message });
    return true;
  }

  private request(): CompletionRequest {
    return { system: this.system, messages: this.history, tools: this.specs };
  }

  /** One model call, accounted; a refusal of what the conversation holds ends the agent. */
  private async complete(request: CompletionRequest): Promise<ModelResponse> {
    let response: ModelResponse;
    try {
      response = await this.llm.complete({ ...request, signal: this.context.signal });
    } catch (error) {
      if (error instanceof ModelError && !INFRASTRUCTURE_KINDS.includes(error.kind) && error.kind !== 'context_too_long') {
        // The task prompt alone (no answer, no partner's message yet): what the harness sends every task.
        if (request.messages.length === 1) throw new FirstRequestRefused(error, this.llm.id);
        throw new AgentStop({ status: 'model_rejected', error: error.message });
      }
      throw error;
    }
    this.meter.observe(requestChars(request), response.usage.inputTokens);
    this.spentUsd += response.usage.costUsd;
    this.options.onModelCall?.({ agentId: this.context.agentId, model: this.llm.id, usage: response.usage, stopReason: response.stopReason });
    if (response.refusal !== undefined) {
      this.context.trajectory.record({ kind: 'model', output: response.content, input: response.toolCalls.length ? response.toolCalls : undefined });
      throw new AgentStop({ status: 'refused', error: `the model declined to go on: ${response.refusal.slice(0, 500)}` });
    }
    if (this.config.costLimitUsd !== null && this.spentUsd >= this.config.costLimitUsd) {
      throw new AgentStop({ status: 'cost_limit', error: `spent $${this.spentUsd.toFixed(4)} of the cost limit $${this.config.costLimitUsd}` });
    }
    return response;
  }

  private checkClock(): void {
    const limit = this.config.timeLimitSeconds;
    if (limit !== null && Date.now() - this.started >= limit * 1000) {
      throw new AgentStop({ status: 'time_limit', error: `stopped after ${limit} s` });
    }
  }

  /**
   * Replaces the history up to the latest point that fits a summary request by the task and the
   * model's summary; the trajectory keeps everything.
   */
  private async compact(share: number, reason: string): Promise<void> {
    const window = this.llm.contextWindow;
    const budget = window === undefined ? Infinity : share * window;
    const instruction: ChatMessage = { role: 'user', content: this.config.compaction.summary.render({}) };
    for (const cut of cutPoints(this.history)) {
      const request: CompletionRequest = {
        system: this.system,
        messages: [...elided(this.history.slice(0, cut)), instruction],
        tools: this.specs,
        toolChoice: 'none',
      };
      if (this.meter.estimate(request) > budget) continue;
      let summary: string;
      try {
        summary = (await this.complete(request)).content.trim();
      } catch (error) {
        if (this.learnOverflow(error, request)) continue;
        throw error;
      }
      if (summary === '') break;
      const kept = this.history.slice(cut);
      this.context.trajectory.record({ kind: 'note', name: 'compaction', input: { reason, summarised: cut, kept: kept.length }, output: summary });
      this.history = [{ role: 'user', content: this.config.compaction.resume.render({ task: this.task, summary }) }, ...kept];
      return;
    }
    throw new AgentStop({ status: 'context_exhausted', error: `the conversation could not be summarised within the context window (${reason})` });
  }

  private async runCall(call: ToolCall): Promise<boolean> {
    const tool = this.tools.find((t) => t.name === call.name);
    const result = await this.runTool(tool, call.name, call.arguments);
    this.context.trajectory.record({ kind: 'tool', name: call.name, input: call.arguments, output: result.output, exitCode: result.exitCode });
    this.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.output });
    return result.finish === true;
  }

  /** Calls cut off at the output limit get a result that says so: every call is answered. */
  private answerUnrun(calls: ToolCall[]): void {
    const text = this.config.messages.truncatedCall.render({ max_output_tokens: this.outputLimit() });
    for (const call of calls) {
      this.context.trajectory.record({ kind: 'tool', name: call.name, input: call.arguments, output: text, exitCode: 1 });
      this.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: text });
    }
  }

  private nudge(which: 'no_tool_call' | 'truncated_reply'): void {
    const text =
      which === 'no_tool_call'
        ? this.config.messages.noToolCall.render({})
        : this.config.messages.truncatedReply.render({ max_output_tokens: this.outputLimit() });
    this.context.trajectory.record({ kind: 'note', name: which, output: text });
    this.history.push({ role: 'user', content: text });
  }

  private outputLimit(): string {
    return this.llm.maxOutputTokens === undefined ? "the server's" : String(this.llm.maxOutputTokens);
  }

  private async runTool(tool: Tool | undefined, name: string, rawArguments: string): Promise<ToolResult> {
    if (!tool) return { output: `Error: there is no tool named "${name}"; use one of the tools you were given`, exitCode: 1 };
    const parsed = parseArguments(tool, rawArguments);
    if ('error' in parsed) return { output: `Error: ${parsed.error}`, exitCode: 1 };
    const { sandbox, mailbox, signal } = this.context;
    try {
      return await tool.run(parsed.args, { sandbox, mailbox, signal });
    } catch (error) {
      // What the agent asked for went wrong (a file too large to read, a directory given as a file):
      // the model is told and carries on. A stop or a failing engine ends the agent.
      if (signal.aborted || this.context.isInfrastructureError(error)) throw error;
      return { output: `Error: ${errorMessage(error)}`, exitCode: 1 };
    }
  }
}
