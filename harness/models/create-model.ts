// The entry points: check the specs before a run starts, then build one Model per agent or judge.
import { UserError } from '../errors.ts';
import { providerFor } from './providers/index.ts';
import { lifecycleText, retirementRefusal } from './retirements.ts';
import { resolveModel, type ModelOptions, type ResolvedModel } from './resolve.ts';
import type { ParsedModelSpec } from './specs.ts';
import type { Model } from './types.ts';

/** Builds a model for `spec`; throws a one-line UserError for a bad spec, key or price file. */
export function createModel(spec: string | ParsedModelSpec, options: ModelOptions = {}): Model {
  return modelFor(resolveChecked(spec, options));
}

/** The model its provider builds for a resolved spec; `fetch`: how its requests travel (default: the global fetch). */
export function modelFor(resolved: ResolvedModel, fetch?: typeof globalThis.fetch): Model {
  return providerFor(resolved.provider).create(resolved, fetch);
}

/**
 * Throws a one-line UserError for the first spec that cannot run (unknown form, missing key,
 * bad price file, a model retired on the run's date, a reasoning effort the model refuses or that
 * no model takes), so that the CLI stops before anything is built. Makes no network call.
 */
export function checkModelSpecs(specs: readonly (string | ParsedModelSpec)[], options: ModelOptions = {}): ResolvedModel[] {
  const resolved = specs.map((spec) => resolveChecked(spec, options));
  if (options.reasoningEffort && resolved.length > 0 && resolved.every((model) => model.reasoningEffort === undefined)) {
    throw new UserError(`${resolved[0]!.effortNotSent}; no model of this run takes --reasoning-effort: drop it (coop-bench models lists each model's efforts)`);
  }
  return resolved;
}

const warned = new Set<string>();

function resolveChecked(model: string | ParsedModelSpec, options: ModelOptions): ResolvedModel {
  const resolved = resolveModel(model, options);
  const { spec } = resolved;
  const refusal = retirementRefusal(spec, resolved.model, resolved.lifecycle);
  if (refusal) throw new UserError(refusal);
  const { state } = resolved.lifecycle;
  const warnings = [
    resolved.price
      ? undefined
      : `warning: no price for model ${resolved.model}: its calls count as $0 (add it to a price file given with --prices or COOP_BENCH_PRICES)`,
    state === 'retiring' || state === 'deprecated'
      ? `warning: model ${resolved.model} (${spec}) is ${lifecycleText(resolved.lifecycle)}${resolved.lifecycle.replacement ? `; its replacement: ${resolved.lifecycle.replacement}` : ''}`
      : undefined,
    resolved.effortNotSent && `warning: ${resolved.effortNotSent}`,
  ];
  for (const warning of warnings) {
    if (warning === undefined || warned.has(warning)) continue;
    warned.add(warning);
    (options.warn ?? console.warn)(warning);
  }
  return resolved;
}
