// USD per million tokens and context windows per model id (from the catalogue, catalogue.json), used
// to record the cost of each call and to tell the agent loop when to compact. Users override or
// extend the table with a JSON file (`--prices <file>` or COOP_BENCH_PRICES):
//
//   { "gpt-5": { "inputPerMillion": 1.25, "outputPerMillion": 10 },
//     "qwen2.5-coder-32b": { "inputPerMillion": 0, "outputPerMillion": 0, "contextWindow": 32768 } }
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import type { Usage } from './types.ts';
import { CATALOGUE } from './catalogue.ts';
import { undatedModelId } from './model-ids.ts';

const modelPriceSchema = z.strictObject({
  inputPerMillion: z.number().nonnegative(),
  outputPerMillion: z.number().nonnegative(),
  /** Input tokens read from the provider's prompt cache; default: the input price. */
  cachedInputPerMillion: z.number().nonnegative().optional(),
  /** Input tokens written to the prompt cache for 5 minutes; default: 1.25x the input price (Anthropic's rate). */
  cacheWritePerMillion: z.number().nonnegative().optional(),
  /** Input tokens written to the prompt cache for 1 hour; default: 2x the input price (Anthropic's rate). */
  cacheWrite1hPerMillion: z.number().nonnegative().optional(),
  /** The model's context window: prompt and output together. */
  contextWindow: z.number().int().positive().optional(),
  /** A limit of the prompt alone, where the provider sets one below the window (gpt-5: 272,000 of 400,000). */
  inputLimit: z.number().int().positive().optional(),
  /** The most output tokens one request may ask for. */
  maxOutputTokens: z.number().int().positive().optional(),
});
const priceFileSchema = z.record(z.string().min(1), modelPriceSchema.partial());

export type ModelPrice = z.infer<typeof modelPriceSchema>;
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Anthropic's prompt cache rates, as multiples of the input price (prompt caching docs, "Pricing"). */
export const CACHE_WRITE_RATE = 1.25;
export const CACHE_WRITE_1H_RATE = 2;

/**
 * The catalogue's models that have prices (a retired model has none: nothing can be bought of it),
 * in the price file's field names. Claude: cache writes 1.25x (5 minutes) or 2x (1 hour) the input
 * price, cache reads 0.1x.
 */
export const DEFAULT_PRICES: PriceTable = Object.fromEntries(
  CATALOGUE.models.flatMap(({ id, prices, contextWindow, inputLimit, maxOutputTokens }) => {
    if (!prices) return [];
    const price: ModelPrice = {
      inputPerMillion: prices.input,
      outputPerMillion: prices.output,
      cachedInputPerMillion: prices.cacheRead,
      cacheWritePerMillion: prices.cacheWrite5m,
      cacheWrite1hPerMillion: prices.cacheWrite1h,
      contextWindow,
      inputLimit,
      maxOutputTokens,
    };
    return [[id, Object.fromEntries(Object.entries(price).filter(([, value]) => value !== undefined)) as ModelPrice]];
  }),
);

/** The default table, with the entries of `file` (if any) merged over it field by field. */
export function loadPriceTable(file?: string): PriceTable {
  if (!file) return DEFAULT_PRICES;
  const overrides = readPriceFile(file);
  const table: Record<string, ModelPrice> = { ...DEFAULT_PRICES };
  for (const [model, fields] of Object.entries(overrides)) {
    const merged = { ...DEFAULT_PRICES[model], ...fields };
    if (merged.inputPerMillion === undefined || merged.outputPerMillion === undefined) {
      throw new UserError(`bad price file ${file}: "${model}" is not in the built-in table, so give both inputPerMillion and outputPerMillion`);
    }
    table[model] = merged as ModelPrice;
  }
  return table;
}

function readPriceFile(file: string): z.infer<typeof priceFileSchema> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(
      `cannot read price file ${file} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}): check the path given to --prices or COOP_BENCH_PRICES`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UserError(`bad price file ${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = priceFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `at ${issue.path.map(String).join('.')}: ` : '';
    throw new UserError(
      `bad price file ${file}: ${where}${issue.message}; the format is {"<model>": {"inputPerMillion": n, "outputPerMillion": n, "cachedInputPerMillion"?: n, "cacheWritePerMillion"?: n, "cacheWrite1hPerMillion"?: n, "contextWindow"?: n, "inputLimit"?: n, "maxOutputTokens"?: n}}`,
    );
  }
  return parsed.data;
}

/** The entry for `model`, also for dated ids such as claude-sonnet-4-5-20250929 or gpt-4o-2024-08-06. */
export function priceFor(table: PriceTable, model: string): ModelPrice | undefined {
  return table[model] ?? table[undatedModelId(model)];
}

export function costUsd(
  price: ModelPrice | undefined,
  usage: Pick<Usage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'cacheWriteTokens' | 'cacheWrite1hTokens'>,
): number {
  if (!price) return 0;
  const read = usage.cachedInputTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const uncached = usage.inputTokens - read - write - write1h;
  const input = price.inputPerMillion;
  return (
    (uncached * input +
      read * (price.cachedInputPerMillion ?? input) +
      write * (price.cacheWritePerMillion ?? CACHE_WRITE_RATE * input) +
      write1h * (price.cacheWrite1hPerMillion ?? CACHE_WRITE_1H_RATE * input) +
      usage.outputTokens * price.outputPerMillion) /
    1e6
  );
}
