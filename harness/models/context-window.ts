// Before a run starts, the context window of every model: an agent compacts its conversation ahead
// of the window, so it must know it. The price table knows the providers' models; for any other
// the window comes from --context-window, or from the server: vLLM's /v1/models gives each model's
// max_model_len (vllm/entrypoints/openai/protocol.py, ModelCard). A window that stays unknown stops
// the run before any container starts.
import { UserError } from '../errors.ts';
import { toModelError } from './errors.ts';
import { resolveModel, type ModelOptions, type ResolvedModel } from './resolve.ts';

/** Windows found on the servers, by spec, for the specs whose window is not known otherwise. */
export async function findContextWindows(specs: string[], options: ModelOptions): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const spec of new Set(specs)) {
    const resolved = resolveModel(spec, options);
    if (resolved.contextWindow !== undefined) continue;
    const fromServer = resolved.provider === 'openai' ? await maxModelLen(resolved) : undefined;
    if (fromServer === undefined) {
      throw new UserError(
        `the context window of model ${resolved.model} (${spec}) is unknown: its server does not say (no max_model_len in ${resolved.baseURL}/models); give it with --context-window <tokens>, or as "contextWindow" in a --prices file`,
      );
    }
    found[spec] = fromServer;
  }
  return found;
}

async function maxModelLen(model: ResolvedModel): Promise<number | undefined> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ apiKey: model.apiKey, baseURL: model.baseURL, maxRetries: 1, timeout: 30_000 });
  try {
    for await (const entry of client.models.list()) {
      const length = (entry as { max_model_len?: unknown }).max_model_len;
      if (entry.id === model.model && typeof length === 'number' && length > 0) return length;
    }
    return undefined;
  } catch (error) {
    const failure = toModelError(error, { ...model, maxRetries: 1, timeoutMs: 30_000 }, OpenAI);
    throw new UserError(
      `cannot ask for the context window of ${model.spec}: ${failure instanceof Error ? failure.message : String(failure)}; or give it with --context-window <tokens>`,
    );
  }
}
