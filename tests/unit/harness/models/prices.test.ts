import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../../harness/errors.ts';
import { costUsd, createModel, DEFAULT_PRICES, loadPriceTable, MODEL_ALIASES, priceFor } from '../../../../harness/models/index.ts';
import { cleanupDirs, OPENAI_TEST_KEY, tempDir } from './helpers.ts';

afterEach(cleanupDirs);

describe('the price table', () => {
  it('prices the alias models and the other live models of the catalogue, and no retired one', () => {
    for (const { model } of Object.values(MODEL_ALIASES)) expect(DEFAULT_PRICES[model]).toBeDefined();
    expect(DEFAULT_PRICES['gpt-5']).toEqual({
      inputPerMillion: 1.25,
      outputPerMillion: 10,
      cachedInputPerMillion: 0.125,
      contextWindow: 400_000,
      inputLimit: 272_000,
      maxOutputTokens: 128_000,
    });
    expect(DEFAULT_PRICES['claude-sonnet-4-5']).toEqual({
      inputPerMillion: 3,
      outputPerMillion: 15,
      cachedInputPerMillion: 0.3,
      cacheWritePerMillion: 3.75,
      cacheWrite1hPerMillion: 6,
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(DEFAULT_PRICES['claude-sonnet-5-5']).toEqual({
      inputPerMillion: 2,
      outputPerMillion: 10,
      cachedInputPerMillion: 0.2,
      cacheWritePerMillion: 2.5,
      cacheWrite1hPerMillion: 4,
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
    });
    for (const model of ['gpt-5-mini', 'gpt-5.6-sol', 'gpt-4o', 'gpt-4.1', 'claude-opus-5-5', 'claude-haiku-4-5']) expect(DEFAULT_PRICES[model]).toBeDefined();
    for (const retired of ['claude-sonnet-4', 'claude-opus-4-1', 'claude-opus-4', 'o4-mini']) expect(DEFAULT_PRICES[retired]).toBeUndefined();
  });

  it('finds dated model ids under their undated name', () => {
    expect(priceFor(DEFAULT_PRICES, 'claude-sonnet-4-5-20250929')).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(priceFor(DEFAULT_PRICES, 'gpt-4o-2024-08-06')).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceFor(DEFAULT_PRICES, 'qwen2.5-coder')).toBeUndefined();
  });

  it('computes cost per million tokens, cached input at its own price', () => {
    const price = DEFAULT_PRICES['gpt-5'];
    expect(costUsd(price, { inputTokens: 1_000_000, outputTokens: 100_000 })).toBeCloseTo(1.25 + 1, 10);
    expect(costUsd(price, { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 800_000 })).toBeCloseTo(0.2 * 1.25 + 0.8 * 0.125, 10);
    expect(costUsd(undefined, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0);
  });

  it('prices Anthropic cache writes at 1.25x (5 minutes) and 2x (1 hour) the input price, reads at 0.1x', () => {
    const price = DEFAULT_PRICES['claude-sonnet-4-5'];
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 400_000, cacheWriteTokens: 300_000, cacheWrite1hTokens: 200_000 };
    expect(costUsd(price, usage)).toBeCloseTo(0.1 * 3 + 0.4 * 0.3 + 0.3 * 3 * 1.25 + 0.2 * 3 * 2, 10);
    // A model from a price file without cache prices: Anthropic's multipliers of its input price.
    expect(costUsd({ inputPerMillion: 2, outputPerMillion: 0 }, { ...usage, cachedInputTokens: 0 })).toBeCloseTo(0.5 * 2 + 0.3 * 2 * 1.25 + 0.2 * 2 * 2, 10);
  });
});

describe('loadPriceTable', () => {
  it('merges a file over the built-in table, field by field', async () => {
    const dir = await tempDir({
      'prices.json': JSON.stringify({
        'gpt-5': { inputPerMillion: 1 },
        'qwen2.5-coder-32b': { inputPerMillion: 0, outputPerMillion: 0, contextWindow: 32_768 },
      }),
    });
    const table = loadPriceTable(`${dir}/prices.json`);
    expect(table['gpt-5']).toEqual({ ...DEFAULT_PRICES['gpt-5'], inputPerMillion: 1 });
    expect(table['qwen2.5-coder-32b']).toEqual({ inputPerMillion: 0, outputPerMillion: 0, contextWindow: 32_768 });
    expect(table['claude-sonnet-4-5']).toEqual(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(loadPriceTable(undefined)).toBe(DEFAULT_PRICES);
  });

  it('rejects bad files with one line that names the file and the problem', async () => {
    const dir = await tempDir({
      'syntax.json': '{"gpt-5": ',
      'type.json': '{"gpt-5": {"outputPerMillion": -1}}',
      'field.json': '{"gpt-5": {"input": 1}}',
      'new.json': '{"my-model": {"inputPerMillion": 1}}',
      'list.json': '[1, 2]',
    });
    const messages = ['syntax', 'type', 'field', 'new', 'list', 'missing'].map((name) => {
      try {
        loadPriceTable(`${dir}/${name}.json`);
      } catch (error) {
        expect(error).toBeInstanceOf(UserError);
        return (error as Error).message;
      }
      return 'no error';
    });
    for (const message of messages) expect(message).not.toContain('\n');
    expect(messages[0]).toMatch(/^bad price file .*syntax\.json: not valid JSON/);
    expect(messages[1]).toMatch(/^bad price file .*type\.json: at gpt-5\.outputPerMillion: .*>=0/);
    expect(messages[2]).toMatch(/^bad price file .*field\.json: at gpt-5: .*"input"/);
    expect(messages[3]).toMatch(/^bad price file .*new\.json: "my-model" is not in the built-in table, so give both inputPerMillion and outputPerMillion$/);
    expect(messages[4]).toMatch(/^bad price file .*list\.json: /);
    expect(messages[5]).toMatch(/^cannot read price file .*missing\.json \(ENOENT\): check the path given to --prices or COOP_BENCH_PRICES$/);
  });
});

describe('prices in createModel', () => {
  it('reads COOP_BENCH_PRICES (relative to the current directory) for the context window, less the output budget', async () => {
    const cwd = await tempDir({ 'my-prices.json': '{"gpt-5": {"contextWindow": 100000}}' });
    const model = createModel('gpt-5', { env: { OPENAI_API_KEY: OPENAI_TEST_KEY, COOP_BENCH_PRICES: 'my-prices.json' }, cwd });
    expect(model.contextWindow).toBe(100_000 - 32_000);
    // gpt-5's prompt may use 272k of its 400k window.
    expect(createModel('gpt-5', { env: { OPENAI_API_KEY: OPENAI_TEST_KEY }, cwd }).contextWindow).toBe(272_000);
  });

  it('leaves the context window of an unknown model unknown, and warns once that it costs 0', async () => {
    const cwd = await tempDir();
    const warnings: string[] = [];
    const options = { env: {}, cwd, warn: (message: string) => warnings.push(message) };
    const model = createModel('openai:unpriced-model-a@http://127.0.0.1:9/v1', options);
    createModel('openai:unpriced-model-a@http://127.0.0.1:9/v1', options);
    expect(model.contextWindow).toBeUndefined();
    expect(createModel('openai:unpriced-model-a@http://127.0.0.1:9/v1', { ...options, contextWindow: 32_768 }).contextWindow).toBe(32_768);
    expect(warnings).toEqual([
      'warning: no price for model unpriced-model-a: its calls count as $0 (add it to a price file given with --prices or COOP_BENCH_PRICES)',
    ]);
  });
});
