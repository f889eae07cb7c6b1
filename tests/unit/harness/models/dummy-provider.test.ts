// A provider added with one file and one registry line runs a whole `coop-bench run` (the local
// test backend, no Docker): its specs parse, its key is read, its server gives the context window,
// the preflight and `doctor` name it, its calls are costed and stored, and the report shows it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark, type RunOptions } from '../../../../harness/run/run-benchmark.ts';
import { writeReport } from '../../../../harness/run/write-report.ts';
import { checkModels } from '../../../../harness/commands/doctor-checks.ts';
import { program } from '../../../../harness/cli.ts';
import { registerProvider, unregisterProvider } from '../../../../harness/models/index.ts';
import { createLocalBackend, type LocalBackend } from '../../../fakes/local-backend.ts';
import { DUMMY_KEY, startFakeDummy, type FakeDummyServer } from '../../../fakes/dummy-server.ts';
import { queryRun, tempDir } from '../../../helpers/cli.ts';
import { recordingIO, runOptions } from '../../../helpers/run-options.ts';
import { dummyProvider } from './dummy-provider.ts';

const runs = tempDir('dummy-provider');
const pricesFile = join(runs, 'prices.json');
const SPEC = 'dummy:some-model';
/** USD per million tokens, from the price file. */
const PRICE = { inputPerMillion: 3, outputPerMillion: 15 };
let fake: FakeDummyServer;
let backend: LocalBackend;

const { io, out, lines } = recordingIO();

const env = () => ({ DUMMY_API_KEY: DUMMY_KEY, DUMMY_BASE_URL: fake.url });
const options = (name: string, modelEnv: Record<string, string>): RunOptions =>
  runOptions({
    name,
    runsDir: runs,
    models: [SPEC],
    settings: ['coop'],
    pools: ['argkit_task'],
    features: [1, 2],
    modelOptions: { env: modelEnv, cwd: runs, pricesFile, warn: () => undefined },
  });

beforeAll(async () => {
  registerProvider(dummyProvider);
  writeFileSync(pricesFile, JSON.stringify({ 'some-model': PRICE }));
  // Each agent runs one command, then finishes.
  fake = await startFakeDummy({
    contextWindow: 64_000,
    handler: (request) => {
      const ran = (request.body.messages as { role: string }[]).some((m) => m.role === 'tool');
      return { turn: { text: null, toolCalls: [ran ? { name: 'finish', input: { summary: 'done' } } : { name: 'bash', input: { command: 'true' } }] } };
    },
  });
  backend = createLocalBackend();
});

afterAll(async () => {
  unregisterProvider(dummyProvider.name);
  await fake.close();
  rmSync(runs, { recursive: true, force: true });
});

describe('a model provider added with one registry line', () => {
  it('runs a Coop task end to end: calls with its key, usage and cost stored, the model in the summary and the report', async () => {
    expect(await runBenchmark(options('dummy', env()), { createBackend: async () => backend, io })).toBe(0);
    expect(queryRun<{ status: string }>(runs, 'dummy', 'SELECT status FROM tasks')).toEqual([{ status: 'done' }]);
    expect(lines.find((line) => line.startsWith(`preflight ${SPEC}`))).toMatch(
      /^preflight dummy:some-model \(some-model\): ok \(tool call, tool result sent back, second answer\)/,
    );

    expect(fake.refusals).toEqual([]);
    // The context window asked of its server once; two agents, each: a command, then finish.
    expect(fake.requests.filter((request) => request.method === 'GET').map((request) => request.path)).toEqual(['/v1/models/some-model']);
    expect(fake.requests.filter((request) => request.path === '/v1/complete')).toHaveLength(4);
    expect(fake.requests.every((request) => request.headers['x-dummy-key'] === DUMMY_KEY)).toBe(true);
    const calls = queryRun<{ model: string; input_tokens: number; output_tokens: number; cost_usd: number }>(
      runs,
      'dummy',
      'SELECT model, input_tokens, output_tokens, cost_usd FROM model_calls',
    );
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      expect(call.model).toBe('some-model');
      expect(call.input_tokens).toBeGreaterThan(0);
      expect(call.cost_usd).toBeCloseTo((call.input_tokens * PRICE.inputPerMillion + call.output_tokens * PRICE.outputPerMillion) / 1e6, 12);
    }

    expect(out.join('')).toContain(`${SPEC} = dummy some-model`);
    const html = readFileSync(writeReport({ runsDir: runs, name: 'dummy', format: 'html' }).path, 'utf8');
    expect(html).toContain(SPEC);
    expect(html).toContain('some-model');
  });

  it('without its key, the run stops before anything is built, in one line naming its key variable', async () => {
    let built = false;
    const run = runBenchmark(options('no-key', {}), {
      createBackend: async () => {
        built = true;
        return backend;
      },
      io,
    });
    await expect(run).rejects.toThrow(/^no API key for model "dummy:some-model": set DUMMY_API_KEY in the environment or in \.\/\.env$/);
    expect(built).toBe(false);
  });

  it('doctor checks its key, `doctor --live` sends it the preflight, and the help texts name it', async () => {
    const modelOptions = { env: env(), cwd: runs, pricesFile, warn: () => undefined };
    expect(checkModels([SPEC], modelOptions)).toEqual([
      expect.objectContaining({ status: 'ok', detail: `some-model at 127.0.0.1:${fake.port}, key from DUMMY_API_KEY (not verified online)` }),
    ]);
    const [status] = checkModels(['dummy:some-model'], { ...modelOptions, env: {} });
    expect(status).toMatchObject({ status: 'FAIL', detail: 'no API key for model "dummy:some-model": set DUMMY_API_KEY in the environment or in ./.env' });

    const doctor = await program(['node', 'coop-bench', 'doctor']);
    expect(doctor.commands[0]!.helpInformation().replace(/\s+/g, ' ')).toContain('DUMMY_API_KEY for dummy:<model>');
    const run = await program(['node', 'coop-bench', 'run']);
    expect(run.commands[0]!.helpInformation().replace(/\s+/g, ' ')).toContain('dummy:<model>@<base-url>');

    const printed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      printed.push(String(text));
      return true;
    });
    for (const [name, value] of Object.entries({ ...env(), COOP_BENCH_PRICES: pricesFile })) vi.stubEnv(name, value);
    try {
      const preflights = fake.preflights.length;
      await doctor.exitOverride().parseAsync(['node', 'coop-bench', 'doctor', '--live', '--models', SPEC]);
      expect(printed.join('')).toMatch(/^preflight dummy:some-model \(some-model\): ok .*\nready: every model took the exchange a task makes\n$/);
      expect(fake.preflights.length).toBe(preflights + 2);
    } finally {
      write.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
