import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../../harness/errors.ts';
import {
  CATALOGUE,
  checkModelSpecs,
  createModel,
  lifecycleOf,
  lifecycleText,
  MODEL_ALIASES,
  parseCatalogue,
  runDate,
} from '../../../../harness/models/index.ts';
import { AGENT_CLIS } from '../../../../harness/agents/cli/index.ts';
import { formatCatalogue } from '../../../../harness/commands/models.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { ANTHROPIC_TEST_KEY, cleanupDirs, OPENAI_TEST_KEY, tempDir } from './helpers.ts';

afterEach(cleanupDirs);

const day = (text: string) => new Date(`${text}T00:00:00Z`);
const keys = { OPENAI_API_KEY: OPENAI_TEST_KEY, ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY };
const quiet = { warn: () => {} };

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

const minimal = { id: 'm', provider: 'openai', sources: {} };

describe('the model catalogue', () => {
  it('loads, each figure with its source', () => {
    expect(CATALOGUE.models.length).toBeGreaterThan(10);
    for (const entry of CATALOGUE.models) {
      if (entry.prices) expect(entry.sources.prices?.ref).toBeTruthy();
      if (entry.retires) expect(entry.sources.lifecycle?.ref).toBeTruthy();
    }
    expect(CATALOGUE.entry('claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5');
    expect(CATALOGUE.entry('gpt-5-2025-08-07')?.retires).toBe('2026-12-11');
    expect(CATALOGUE.entry('qwen2.5-coder')).toBeUndefined();
  });

  it('refuses a catalogue with a figure without its source, a duplicate, an unknown field or a bad day, naming the entry', () => {
    expect(() => parseCatalogue({ models: [minimal] })).not.toThrow();
    expect(thrown(() => parseCatalogue({ models: [{ ...minimal, prices: { input: 1, output: 2 } }] })).message).toBe(
      'bad the model catalogue: m: sources.prices: a source for its prices',
    );
    expect(thrown(() => parseCatalogue({ models: [minimal, minimal] })).message).toBe('bad the model catalogue: m is listed twice');
    expect(
      thrown(() =>
        parseCatalogue({
          models: [
            { ...minimal, aliases: ['x'] },
            { ...minimal, id: 'n', aliases: ['x'] },
          ],
        }),
      ).message,
    ).toBe('bad the model catalogue: alias x stands for both m and n');
    expect(thrown(() => parseCatalogue({ models: [{ ...minimal, window: 5 }] })).message).toMatch(/^bad the model catalogue: m: entry: Unrecognized key/);
    const source = { lifecycle: { ref: 'page', verified: true } };
    expect(thrown(() => parseCatalogue({ models: [{ ...minimal, retires: '30 Nov 2026', sources: source }] })).message).toBe(
      'bad the model catalogue: m: retires: a day as YYYY-MM-DD',
    );
  });

  it('resolves claude to the current Sonnet, which the installed SDK lists as active, and no default to a retired model', () => {
    expect(MODEL_ALIASES.claude).toEqual({ provider: 'anthropic', model: 'claude-sonnet-5-5' });
    const today = day('2026-12-01');
    for (const { model } of Object.values(MODEL_ALIASES).filter((a) => a.provider === 'anthropic'))
      expect(lifecycleOf(CATALOGUE.entry(model), today).state).toBe('active');
    for (const cli of AGENT_CLIS) {
      expect(lifecycleOf(CATALOGUE.entry(cli.defaultModel), today).state).toBe('active');
      expect(cli.degradedOn?.(cli.defaultModel)).toBeUndefined();
    }
  });
});

describe("a model's status on a day", () => {
  const sonnet45 = CATALOGUE.entry('claude-sonnet-4-5');
  it.each([
    ['2026-08-01', 'deprecated', 'deprecated (retires 2026-11-30, in 121 days)'],
    ['2026-11-01', 'retiring', 'retiring in 29 days (2026-11-30)'],
    ['2026-11-29', 'retiring', 'retiring in 1 day (2026-11-30)'],
    ['2026-11-30', 'retired', 'retired on 2026-11-30'],
  ])('claude-sonnet-4-5 on %s: %s', (date, state, text) => {
    const lifecycle = lifecycleOf(sonnet45, day(date));
    expect(lifecycle.state).toBe(state);
    expect(lifecycleText(lifecycle)).toBe(text);
  });

  it('says "unverified" where only third-party pages report the date, and knows nothing of a model it does not list', () => {
    expect(lifecycleText(lifecycleOf(CATALOGUE.entry('o3'), day('2026-11-29')))).toBe('retiring in 12 days (2026-12-11, unverified)');
    expect(lifecycleText(lifecycleOf(CATALOGUE.entry('claude-sonnet-5-5'), day('2026-11-29')))).toBe('active');
    expect(lifecycleText(lifecycleOf(undefined, day('2026-11-29')))).toBe('not in the catalogue');
  });

  it('takes the run date from COOP_BENCH_TODAY, and refuses one that is not a day', () => {
    expect(runDate({ env: { COOP_BENCH_TODAY: '2026-12-01' } }).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(runDate({ today: '2027-01-02' }).toISOString()).toBe('2027-01-02T00:00:00.000Z');
    expect(thrown(() => runDate({ env: { COOP_BENCH_TODAY: '2026-02-30' } })).message).toBe(
      'COOP_BENCH_TODAY is not a day ("2026-02-30"): write it as YYYY-MM-DD, or unset it to use today',
    );
  });
});

describe('checking specs against the catalogue before a run', () => {
  it('refuses a retired model in one line naming its replacement, and accepts it the day before', async () => {
    const cwd = await tempDir();
    const error = thrown(() => checkModelSpecs(['anthropic:claude-sonnet-4-5'], { env: keys, cwd, today: '2026-12-01', ...quiet }));
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe(
      "model claude-sonnet-4-5 (anthropic:claude-sonnet-4-5) was retired on 2026-11-30: its provider no longer serves it; use claude-sonnet-5-5 instead (coop-bench models lists each model's status)",
    );
    expect(() => checkModelSpecs(['anthropic:claude-sonnet-4-5', 'claude'], { env: keys, cwd, today: '2026-11-29', ...quiet })).not.toThrow();
    expect(thrown(() => checkModelSpecs(['gpt-5'], { env: keys, cwd, today: '2026-12-11' })).message).toMatch(
      /^model gpt-5 \(gpt-5\) was retired on 2026-12-11: .*; use gpt-6\.1-sol instead/,
    );
    expect(thrown(() => checkModelSpecs(['openai:o4-mini'], { env: keys, cwd })).message).toMatch(
      /^model o4-mini \(openai:o4-mini\) was retired on 2026-10-23 \(a date only third-party pages report\): .*use gpt-5\.6-sol instead/,
    );
  });

  it('warns about a model retiring within 30 days', async () => {
    const warnings: string[] = [];
    checkModelSpecs(['gpt-5'], { env: keys, cwd: await tempDir(), today: '2026-11-29', warn: (line) => warnings.push(line) });
    expect(warnings).toContain('warning: model gpt-5 (gpt-5) is retiring in 12 days (2026-12-11); its replacement: gpt-6.1-sol');
  });

  it('refuses a reasoning effort the model does not accept, with the values it does', async () => {
    const cwd = await tempDir();
    expect(thrown(() => checkModelSpecs(['gpt-5'], { env: keys, cwd, reasoningEffort: 'xhigh', ...quiet })).message).toBe(
      '--reasoning-effort xhigh is not accepted by model gpt-5 (gpt-5): use minimal, low, medium, high',
    );
    expect(() => checkModelSpecs(['openai:gpt-5.6-sol'], { env: keys, cwd, reasoningEffort: 'xhigh', ...quiet })).not.toThrow();
    expect(() => checkModelSpecs(['openai:gpt-5.6-sol'], { env: keys, cwd, reasoningEffort: 'none', ...quiet })).not.toThrow();
    expect(thrown(() => checkModelSpecs(['openai:gpt-4.1'], { env: keys, cwd, reasoningEffort: 'high', ...quiet })).message).toBe(
      "--reasoning-effort is not sent to gpt-4.1 (openai:gpt-4.1): it takes no reasoning effort; no model of this run takes --reasoning-effort: drop it (coop-bench models lists each model's efforts)",
    );
    // With a model that takes it, the others of the run go without (and are warned about).
    const warnings: string[] = [];
    checkModelSpecs(['gpt-5', 'openai:gpt-4o', 'claude'], { env: keys, cwd, reasoningEffort: 'high', warn: (line) => warnings.push(line) });
    expect(warnings).toContain('warning: --reasoning-effort is not sent to gpt-4o (openai:gpt-4o): it takes no reasoning effort');
  });
});

describe('reasoning effort on the wire', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  afterEach(() => server.reset());

  it('the strict fake refuses reasoning_effort to a model without reasoning, as OpenAI does', async () => {
    const client = new OpenAI({ apiKey: OPENAI_TEST_KEY, baseURL: server.url, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Unsupported parameter: 'reasoning_effort' is not supported with this model."),
    });
    await expect(
      client.chat.completions.create({ model: 'o3', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'minimal' }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Unsupported value: 'reasoning_effort' does not support 'minimal' with this model."),
    });
  });

  it('sends no reasoning_effort to gpt-4.1 even when one is given, so its calls succeed', async () => {
    const model = createModel('openai:gpt-4.1', { env: { ...keys, OPENAI_BASE_URL: server.url }, cwd: await tempDir(), reasoningEffort: 'high', ...quiet });
    server.enqueue('ok');
    await expect(model.complete({ messages: [{ role: 'user', content: 'hi' }] })).resolves.toMatchObject({ content: 'ok' });
    expect(server.requests[0]!.body.reasoning_effort).toBeUndefined();
  });
});

describe('coop-bench models', () => {
  it("lists every model with its status on the day, the dates' sources, and which are unverified", () => {
    const text = formatCatalogue(day('2026-12-01'));
    const line = (model: string) => text.split('\n').find((l) => l.startsWith(`${model} `))!;
    expect(text.split('\n')[0]).toMatch(/^Models on 2026-12-01 /);
    expect(line('claude-sonnet-5-5')).toMatch(/anthropic\s+claude\s+1,000,000\s+128,000\s+2 \/ 10\s+0\.2 \/ 2\.5 \/ 4\s+low,medium,high,xhigh,max\s+active$/);
    expect(line('claude-sonnet-4-5')).toMatch(/retired on 2026-11-30$/);
    expect(line('gpt-5')).toMatch(/gpt-5\s+400,000 \(prompt 272,000\).*retiring in 10 days \(2026-12-11\)$/);
    expect(line('gpt-4.1')).toMatch(/\s-\s+deprecated \(retires 2027-01-14, in 44 days, unverified\)$/);
    expect(text).toContain(
      '  claude-sonnet-4-5: deprecated 2026-09-30, retires 2026-11-30, replacement claude-sonnet-5-5: @anthropic-ai/sdk 1.12.0 DEPRECATED_MODELS',
    );
    expect(text).toMatch(/\n {2}o3: .* \(unverified\)\n/);
  });
});
