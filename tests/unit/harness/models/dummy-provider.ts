// A provider written the way a new one is: one ModelProvider in one file, its adapter included,
// registered with one line (registerProvider). Its service is the dummy fake
// (tests/fakes/dummy-server.ts): POST /v1/complete with the key in `x-dummy-key`, and
// GET /v1/models/<model> for a model's context window.
import {
  costUsd,
  ModelError,
  statusFailure,
  type ChatMessage,
  type CompletionRequest,
  type Model,
  type ModelProvider,
  type ModelResponse,
  type ResolvedModel,
} from '../../../../harness/models/index.ts';

interface DummyAnswer {
  text: string;
  tool_calls: { id: string; name: string; arguments: string }[];
  usage: { input_tokens: number; output_tokens: number };
  stop: string;
}

function wireMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role === 'user') return { role: 'user', content: message.content };
  return { role: 'assistant', content: message.content, tool_calls: message.toolCalls ?? [] };
}

/** One call to the dummy service; a failure is a ModelError of the kind its status says, as the built-in adapters' are. */
async function call(model: ResolvedModel, fetch: typeof globalThis.fetch, path: string, init: RequestInit): Promise<unknown> {
  const where = `model ${model.model} at ${new URL(model.baseURL).host}`;
  let answer: Response;
  try {
    answer = await fetch(`${model.baseURL}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', 'x-dummy-key': model.apiKey },
      signal: AbortSignal.timeout(model.timeoutMs),
    });
  } catch (error) {
    throw new ModelError(`${where}: cannot connect (${(error as Error).message})`, 'connection');
  }
  const body = (await answer.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  if (answer.ok) return body;
  const detail = body?.error?.message ?? answer.statusText;
  throw (
    statusFailure(answer.status, where, detail, model.keyVariable) ??
    new ModelError(`${where}: request rejected (${answer.status}): ${detail}`, 'request', answer.status)
  );
}

class DummyModel implements Model {
  readonly spec: string;
  readonly id: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;

  constructor(
    private readonly config: ResolvedModel,
    private readonly fetch: typeof globalThis.fetch = globalThis.fetch,
  ) {
    this.spec = config.spec;
    this.id = config.model;
    this.contextWindow = config.contextWindow;
    this.maxOutputTokens = config.maxOutputTokens;
  }

  async complete(request: CompletionRequest): Promise<ModelResponse> {
    const started = performance.now();
    const answer = (await call(this.config, this.fetch, '/complete', {
      method: 'POST',
      body: JSON.stringify({
        model: this.config.model,
        system: request.system,
        messages: request.messages.map(wireMessage),
        tools: request.tools ?? [],
        max_tokens: request.maxOutputTokens ?? this.maxOutputTokens,
      }),
    })) as DummyAnswer;
    const tokens = { inputTokens: answer.usage.input_tokens, outputTokens: answer.usage.output_tokens };
    return {
      content: answer.text,
      toolCalls: answer.tool_calls,
      usage: { ...tokens, costUsd: costUsd(this.config.price, tokens), latencyMs: Math.round(performance.now() - started) },
      stopReason: answer.stop,
    };
  }
}

export const dummyProvider: ModelProvider = {
  name: 'dummy',
  keyVariable: 'DUMMY_API_KEY',
  baseURLVariable: 'DUMMY_BASE_URL',
  defaultBaseURL: 'https://dummy.invalid/v1',
  api: () => 'complete',
  unknownModelMaxOutputTokens: 4096,
  takesReasoningEffort: false,
  serverContextWindow: async (model) => {
    const answer = (await call(model, globalThis.fetch, `/models/${encodeURIComponent(model.model)}`, { method: 'GET' })) as { context_window?: unknown };
    return typeof answer.context_window === 'number' ? answer.context_window : undefined;
  },
  create: (model, fetch) => new DummyModel(model, fetch),
};
