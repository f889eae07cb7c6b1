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
  type CacheTtl,
  type ModelOptions,
  type ResolvedModel,
  type ReasoningEffort,
} from './resolve.ts';
export { isModelSpec, MODEL_ALIASES, modelSpecForms, parseModelSpec, UnknownModelSpec, type ParsedModelSpec } from './specs.ts';
export {
  modelProviders,
  providerFor,
  providerNames,
  proxyApi,
  registerProvider,
  unregisterProvider,
  type CallReading,
  type CallTokens,
  type ModelProvider,
  type Provider,
  type ProxyApi,
  type StreamFailure,
  type UsageReader,
} from './providers/index.ts';
export type * from './types.ts';
