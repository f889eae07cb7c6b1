// The model layer: specs to Model instances for agents and judges (see README.md here).
export { checkModelSpecs, createModel } from './create-model.ts';
export { ModelError, type ModelErrorKind } from './errors.ts';
export { costUsd, DEFAULT_CONTEXT_WINDOW, DEFAULT_PRICES, loadPriceTable, priceFor, type ModelPrice, type PriceTable } from './prices.ts';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type ModelOptions } from './resolve.ts';
export { DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS } from './anthropic-model.ts';
export { ACCEPTED_SPEC_FORMS, isModelSpec, MODEL_ALIASES, parseModelSpec, type ParsedModelSpec, type Provider } from './specs.ts';
export type * from './types.ts';
