// The model layer: specs to Model instances for agents and judges (see README.md here).
export { checkModelSpecs, createModel, modelFor } from './create-model.ts';
export { findContextWindows } from './context-window.ts';
export { CATALOGUE, parseCatalogue, type Catalogue, type CatalogueEntry, type Source } from './catalogue.ts';
export { lifecycleOf, lifecycleText, RETIRING_SOON_DAYS, type Lifecycle, type LifecycleState } from './retirements.ts';
export { runDate, TODAY_VARIABLE } from './settings.ts';
export {
  CONFIGURATION_KINDS,
  FirstRequestRefused,
  INFRASTRUCTURE_KINDS,
  ModelError,
  statusFailure,
  type ModelErrorKind,
  type OverflowFigures,
} from './errors.ts';
export { costUsd, DEFAULT_PRICES, loadPriceTable, priceFor, type ModelPrice, type PriceTable } from './prices.ts';
export {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  REASONING_EFFORTS,
  UNKNOWN_ANTHROPIC_MAX_OUTPUT_TOKENS,
  type CacheTtl,
  type ModelOptions,
  type ResolvedModel,
  type ReasoningEffort,
} from './resolve.ts';
export {
  ACCEPTED_SPEC_FORMS,
  isModelSpec,
  MODEL_ALIASES,
  MODEL_SPEC_FORMS,
  parseModelSpec,
  UnknownModelSpec,
  type ParsedModelSpec,
  type Provider,
} from './specs.ts';
export type * from './types.ts';
