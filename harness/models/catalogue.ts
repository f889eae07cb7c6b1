// The model catalogue (catalogue.json): every model the harness knows, with its limits, prices,
// reasoning efforts and lifecycle dates, and where each figure comes from. Validated on load, so a
// bad edit fails every command at once with the entry and field to fix.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { undatedModelId } from './model-ids.ts';

/** Every effort value a provider documents; each model takes its own subset (`reasoningEfforts`). */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');
const positive = z.number().int().positive();
const price = z.number().nonnegative();

/** `verified`: the provider's own page or SDK says it; false: only third-party pages report it. */
const sourceSchema = z.strictObject({ ref: z.string().min(1), verified: z.boolean() });

const entrySchema = z
  .strictObject({
    id: z.string().min(1),
    /** A provider's name (providers/index.ts checks that each is registered). */
    provider: z.string().min(1),
    /** Specs that stand for this model (`claude`, `gpt-5`). */
    aliases: z.array(z.string().min(1)).default([]),
    /** Prompt and output together. */
    contextWindow: positive.optional(),
    /** A limit of the prompt alone, where the provider sets one below the window. */
    inputLimit: positive.optional(),
    maxOutputTokens: positive.optional(),
    /** USD per million tokens; none for a model that is no longer served. */
    prices: z
      .strictObject({
        input: price,
        output: price,
        cacheRead: price.optional(),
        cacheWrite5m: price.optional(),
        cacheWrite1h: price.optional(),
      })
      .optional(),
    /** The reasoning efforts the model's API accepts; absent: it takes none (the parameter is refused). */
    reasoningEfforts: z.array(z.enum(REASONING_EFFORTS)).min(1).optional(),
    deprecated: day.optional(),
    /** The first day the provider no longer serves the model (UTC). */
    retires: day.optional(),
    /** What the provider recommends instead. */
    replacement: z.string().min(1).optional(),
    sources: z.strictObject({
      limits: sourceSchema.optional(),
      prices: sourceSchema.optional(),
      reasoning: sourceSchema.optional(),
      lifecycle: sourceSchema.optional(),
    }),
  })
  .superRefine((entry, context) => {
    const needs: [boolean, keyof typeof entry.sources][] = [
      [entry.contextWindow !== undefined || entry.maxOutputTokens !== undefined, 'limits'],
      [entry.prices !== undefined, 'prices'],
      [entry.reasoningEfforts !== undefined, 'reasoning'],
      [entry.retires !== undefined || entry.deprecated !== undefined, 'lifecycle'],
    ];
    for (const [present, source] of needs) {
      if (present && !entry.sources[source]) context.addIssue({ code: 'custom', path: ['sources', source], message: `a source for its ${source}` });
    }
    if (entry.deprecated && entry.retires && entry.deprecated > entry.retires) {
      context.addIssue({ code: 'custom', path: ['deprecated'], message: 'deprecated after it retires' });
    }
  });

export type CatalogueEntry = z.infer<typeof entrySchema>;
export type Source = z.infer<typeof sourceSchema>;

export interface Catalogue {
  readonly models: readonly CatalogueEntry[];
  /** An entry by its id, also for dated ids (claude-sonnet-4-5-20250929, gpt-5-2025-08-07). */
  entry(model: string): CatalogueEntry | undefined;
  /** The entry an alias stands for. */
  alias(spec: string): CatalogueEntry | undefined;
}

/** Validates catalogue JSON: ids and aliases unique, every figure with its source. */
export function parseCatalogue(json: unknown, where = 'the model catalogue'): Catalogue {
  const parsed = z.strictObject({ models: z.array(entrySchema) }).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [, index] = issue.path;
    const id = typeof index === 'number' ? ((json as { models: { id?: unknown }[] }).models[index]?.id ?? `entry ${index}`) : undefined;
    throw new Error(`bad ${where}: ${id === undefined ? '' : `${String(id)}: `}${issue.path.slice(2).map(String).join('.') || 'entry'}: ${issue.message}`);
  }
  const byId = new Map<string, CatalogueEntry>();
  const byAlias = new Map<string, CatalogueEntry>();
  for (const entry of parsed.data.models) {
    if (byId.has(entry.id)) throw new Error(`bad ${where}: ${entry.id} is listed twice`);
    byId.set(entry.id, entry);
    for (const alias of entry.aliases) {
      if (byAlias.has(alias)) throw new Error(`bad ${where}: alias ${alias} stands for both ${byAlias.get(alias)!.id} and ${entry.id}`);
      byAlias.set(alias, entry);
    }
  }
  return {
    models: parsed.data.models,
    entry: (model) => byId.get(model) ?? byId.get(undatedModelId(model)),
    alias: (spec) => byAlias.get(spec),
  };
}

const FILE = new URL('./catalogue.json', import.meta.url);

export const CATALOGUE: Catalogue = parseCatalogue(JSON.parse(readFileSync(FILE, 'utf8')), 'harness/models/catalogue.json');
