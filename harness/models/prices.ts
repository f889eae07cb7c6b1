// USD per million tokens and context windows per model id, used to record the cost of each
// call and to tell the agent loop when to compact. Users override or extend the table with a
// JSON file (`--prices <file>` or COOP_BENCH_PRICES):
//
//   { "gpt-5": { "inputPerMillion": 1.25, "outputPerMillion": 10 },
//     "qwen2.5-coder-32b": { "inputPerMillion": 0, "outputPerMillion": 0, "contextWindow": 32768 } }
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../errors.ts';

const modelPriceSchema = z.strictObject({
  inputPerMillion: z.number().nonnegative(),
  outputPerMillion: z.number().nonnegative(),
  /** Input tokens served from the provider's prompt cache; default: the input price. */
  cachedInputPerMillion: z.number().nonnegative().optional(),
  /** Input tokens the model accepts; default DEFAULT_CONTEXT_WINDOW. */
  contextWindow: z.number().int().positive().optional(),
});
const priceFileSchema = z.record(z.string().min(1), modelPriceSchema.partial());

export type ModelPrice = z.infer<typeof modelPriceSchema>;
export type PriceTable = Readonly<Record<string, ModelPrice>>;

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * List prices as of November 2025 (standard tier, no batch discount); check the providers'
 * pages before trusting a cost. gpt-5 models: 400k context minus 128k reserved for output.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.125, contextWindow: 272_000 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2, cachedInputPerMillion: 0.025, contextWindow: 272_000 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4, cachedInputPerMillion: 0.005, contextWindow: 272_000 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5, contextWindow: 1_047_576 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6, cachedInputPerMillion: 0.1, contextWindow: 1_047_576 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10, cachedInputPerMillion: 1.25, contextWindow: 128_000 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075, contextWindow: 128_000 },
  o3: { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5, contextWindow: 200_000 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4, cachedInputPerMillion: 0.275, contextWindow: 200_000 },
  'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3, contextWindow: 200_000 },
  'claude-sonnet-4': { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3, contextWindow: 200_000 },
  'claude-opus-4-5': { inputPerMillion: 5, outputPerMillion: 25, cachedInputPerMillion: 0.5, contextWindow: 200_000 },
  'claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75, cachedInputPerMillion: 1.5, contextWindow: 200_000 },
  'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5, cachedInputPerMillion: 0.1, contextWindow: 200_000 },
};

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
    throw new UserError(`cannot read price file ${file} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}): check the path given to --prices or COOP_BENCH_PRICES`);
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
    throw new UserError(`bad price file ${file}: ${where}${issue.message}; the format is {"<model>": {"inputPerMillion": n, "outputPerMillion": n, "cachedInputPerMillion"?: n, "contextWindow"?: n}}`);
  }
  return parsed.data;
}

/** The entry for `model`, also for dated ids such as claude-sonnet-4-5-20250929 or gpt-4o-2024-08-06. */
export function priceFor(table: PriceTable, model: string): ModelPrice | undefined {
  return table[model] ?? table[model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '')];
}

export function costUsd(
  price: ModelPrice | undefined,
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number },
): number {
  if (!price) return 0;
  const cached = usage.cachedInputTokens ?? 0;
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return ((usage.inputTokens - cached) * price.inputPerMillion + cached * cachedPrice + usage.outputTokens * price.outputPerMillion) / 1e6;
}
