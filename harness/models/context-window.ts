// Before a run starts, the context window of every model: an agent compacts its conversation ahead
// of the window, so it must know it. The price table knows the providers' models; for any other
// the window comes from --context-window, or from the server, when its provider can ask it
// (`serverContextWindow`: vLLM's /v1/models gives each model's max_model_len). A window that stays
// unknown stops the run before any container starts.
import { UserError } from '../errors.ts';
import { providerFor } from './providers/index.ts';
import { resolveModel, type ModelOptions, type ResolvedModel } from './resolve.ts';
import type { ParsedModelSpec } from './specs.ts';

/**
 * The models again, each whose window is not known otherwise carrying the one its server reported
 * (`contextWindow`); throws a UserError for a window that stays unknown.
 */
export async function findContextWindows(models: readonly ParsedModelSpec[], options: ModelOptions): Promise<ParsedModelSpec[]> {
  const found = new Map<string, number>();
  for (const model of models) {
    const { spec } = model;
    if (found.has(spec)) continue;
    const resolved = resolveModel(model, options);
    if (resolved.contextWindow !== undefined) continue;
    const fromServer = await serverWindow(resolved);
    if (fromServer === undefined) {
      throw new UserError(
        `the context window of model ${resolved.model} (${spec}) is unknown: its server does not say (no max_model_len in ${resolved.baseURL}/models); give it with --context-window <tokens>, or as "contextWindow" in a --prices file`,
      );
    }
    found.set(spec, fromServer);
  }
  return models.map((model) => (found.has(model.spec) ? { ...model, contextWindow: found.get(model.spec)! } : model));
}

async function serverWindow(model: ResolvedModel): Promise<number | undefined> {
  try {
    return await providerFor(model.provider).serverContextWindow?.(model);
  } catch (failure) {
    throw new UserError(
      `cannot ask for the context window of ${model.spec}: ${failure instanceof Error ? failure.message : String(failure)}; or give it with --context-window <tokens>`,
    );
  }
}
