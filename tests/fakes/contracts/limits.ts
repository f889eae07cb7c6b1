// What the fake servers know about the real models: their windows and output limits, as the
// providers document them. Independent of the harness's own table (harness/models/prices.ts), so
// that a wrong entry there shows up as a rejected request here.
//
// Sources:
// - OpenAI model pages (platform.openai.com/docs/models/gpt-5 etc.): gpt-5, gpt-5-mini, gpt-5-nano
//   take at most 272,000 input tokens and write at most 128,000 (400,000 in all); the input limit
//   is enforced on its own ("Input tokens exceed the configured limit of 272000 tokens",
//   github.com/cline/cline/issues/5474, github.com/RooCodeInc/Roo-Code/issues/6856).
// - Anthropic models overview (platform.claude.com/docs/en/about-claude/models/overview): a
//   200,000-token context window for the Claude 4 family; max output 64,000 for Sonnet 4.5, Haiku 4.5
//   and Opus 4.5. Sonnet 5.5 (models/sonnet-5-5/overview): a
//   1M-token window, 128K output; thinking is on when a request has no `thinking` field
//   (models/sonnet-5-5/migration-guide). Its cache minimum is not listed: Sonnet's 1024 is assumed.
//   It takes mid-conversation system messages (build-with-claude/mid-conversation-system-messages:
//   Opus 4.8 and later, Sonnet 5.5, Haiku 5.5; not Sonnet 5 or the 4.x models listed here).
// - Anthropic prompt caching docs (platform.claude.com/docs/en/build-with-claude/prompt-caching,
//   "Cache limitations"; quoted in github.com/anthropics/anthropic-sdk-python/issues/1194): the
//   shortest cacheable prompt is 4,096 tokens for Claude Opus 4.5 and Haiku 4.5, 1,024 for Sonnet
//   4.5, Sonnet 4 and Opus 4.1, 2,048 for Haiku 3.5 and Haiku 3. A shorter prefix is not cached
//   and the request still succeeds: no cache write, no read.
// - OpenAI model page of gpt-5.6-sol (developers.openai.com/api/docs/models/gpt-5.6-sol): a
//   1,050,000-token window, 128,000 output (a prompt of at most 922,000); reasoning.effort none, low, medium, high, xhigh, max.
// - gpt-5.5 (third-party copies of its model page: docs.oxen.ai, docs.venice.ai): the same window and
//   output; reasoning.effort none, low, medium, high, xhigh.
// - Reasoning efforts: the OpenAI reasoning guide (gpt-5 family: minimal, low, medium, high;
//   o-series: low, medium, high). A model without `efforts` takes no reasoning parameter at all
//   (gpt-4.1, gpt-4o: 400 "Unsupported parameter: 'reasoning_effort' is not supported with this model.").
// - Retired models are not listed, so the fakes answer them 404 as the services do: claude-sonnet-4
//   and claude-opus-4-1 (retired 2026-06-15 and by 2026-08-07, @anthropic-ai/sdk CHANGELOG), o4-mini
//   (2026-10-23, as third-party copies of OpenAI's deprecations page report).

export interface ModelLimits {
  /** Tokens the prompt may hold. */
  inputLimit: number;
  /** The most output tokens a request may ask for. */
  maxOutput: number;
  /** A reasoning model: temperature is fixed, reasoning items come back on the Responses API. */
  reasoning?: boolean;
  /** The reasoning efforts it accepts; a model without any refuses the parameter. */
  efforts?: string[];
  /** Anthropic: the shortest prefix the prompt cache stores (prompt caching docs, "cache limitations"). */
  minCacheable?: number;
  /** Anthropic: thinks unless told otherwise, so each answer starts with thinking blocks that must come back. */
  thinksByDefault?: boolean;
  /** Anthropic: takes `role: "system"` messages between the turns (mid-conversation system messages). */
  midConversationSystem?: boolean;
}

const GPT_5_EFFORTS = ['minimal', 'low', 'medium', 'high'];

export const OPENAI_MODELS: Record<string, ModelLimits> = {
  'gpt-5': { inputLimit: 272_000, maxOutput: 128_000, reasoning: true, efforts: GPT_5_EFFORTS },
  'gpt-5-mini': { inputLimit: 272_000, maxOutput: 128_000, reasoning: true, efforts: GPT_5_EFFORTS },
  'gpt-5-nano': { inputLimit: 272_000, maxOutput: 128_000, reasoning: true, efforts: GPT_5_EFFORTS },
  'gpt-5.5': { inputLimit: 922_000, maxOutput: 128_000, reasoning: true, efforts: ['none', 'low', 'medium', 'high', 'xhigh'] },
  'gpt-5.6-sol': { inputLimit: 922_000, maxOutput: 128_000, reasoning: true, efforts: ['none', 'low', 'medium', 'high', 'xhigh', 'max'] },
  o3: { inputLimit: 200_000, maxOutput: 100_000, reasoning: true, efforts: ['low', 'medium', 'high'] },
  'gpt-4.1': { inputLimit: 1_047_576, maxOutput: 32_768 },
  'gpt-4o': { inputLimit: 128_000, maxOutput: 16_384 },
};

export const ANTHROPIC_MODELS: Record<string, ModelLimits> = {
  'claude-sonnet-5-5': { inputLimit: 1_000_000, maxOutput: 128_000, minCacheable: 1024, thinksByDefault: true, midConversationSystem: true },
  'claude-sonnet-4-5': { inputLimit: 200_000, maxOutput: 64_000, minCacheable: 1024 },
  'claude-opus-4-5': { inputLimit: 200_000, maxOutput: 64_000, minCacheable: 4096 },
  'claude-haiku-4-5': { inputLimit: 200_000, maxOutput: 64_000, minCacheable: 4096 },
};

/** The entry of `model` in `table`, also for dated ids (claude-sonnet-4-5-20250929, gpt-5-2025-08-07). */
export function limitsOf(table: Record<string, ModelLimits>, model: unknown): ModelLimits | undefined {
  if (typeof model !== 'string') return undefined;
  return table[model] ?? table[model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '')];
}

/**
 * The fakes' tokenizer: one token per 4 characters of the JSON text. Deterministic, so that tests
 * can size a prompt to overflow a window; real tokenizers differ, which the harness must survive
 * (it learns the ratio from the usage each answer reports).
 */
export function countTokens(value: unknown): number {
  if (value === undefined || value === null) return 0;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return Math.ceil(text.length / 4);
}
