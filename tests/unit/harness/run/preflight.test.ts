// The live preflight `run` starts with (and `doctor --live` runs alone): the real SDKs against the
// strict fakes. A good fake answers it as a model would; a fake that breaks one of its rules (refuses
// the reasoning replay, declines, answers in the wrong shape, fails) stops the run before the
// sandbox backend is even created, so no image is built and no container starts.
import { afterEach, describe, expect, it } from 'vitest';
import { runPreflight } from '../../../../harness/run/preflight.ts';
import { parseAgentSpec } from '../../../../harness/agents/registry.ts';
import { runBenchmark } from '../../../../harness/run/run-benchmark.ts';
import { loadAgentConfig } from '../../../../harness/agents/config/agent-config.ts';
import type { SandboxBackend } from '../../../../harness/sandbox/types.ts';
import { UserError } from '../../../../harness/errors.ts';
import { chatReply, errorReply, startFakeOpenAI, type FakeOpenAIServer, type FakeReply } from '../../../fakes/openai-server.ts';
import { messageReply, startFakeAnthropic, type FakeAnthropicServer } from '../../../fakes/anthropic-server.ts';
import { startFakeAnthropicStream } from '../../../fakes/anthropic-stream.ts';
import { startFakeResponses } from '../../../fakes/openai-responses.ts';
import type { StreamServer } from '../../../fakes/stream-server.ts';
import { coopBench, tempDir } from '../../../helpers/cli.ts';
import { recordingIO, runOptions } from '../../../helpers/run-options.ts';
import { closedPort } from '../models/helpers.ts';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fakes(options: { answersPreflight?: boolean } = {}): Promise<{ openai: FakeOpenAIServer; anthropic: FakeAnthropicServer }> {
  const openai = await startFakeOpenAI(options);
  const anthropic = await startFakeAnthropic(options);
  servers.push(openai, anthropic);
  return { openai, anthropic };
}

const modelOptions = (openai: { url: string }, anthropic: { url: string }) => ({
  env: { OPENAI_API_KEY: 'sk-test-preflight-1', OPENAI_BASE_URL: openai.url, ANTHROPIC_API_KEY: 'sk-ant-test-preflight-1', ANTHROPIC_BASE_URL: anthropic.url },
  cwd: tempDir('preflight'),
  maxRetries: 0,
  warn: () => undefined,
});

const lookup = (id = 'call_p') => chatReply(null, { toolCalls: [{ id, name: 'coop_bench_preflight_lookup', arguments: { key: 'a' } }] });
const lookupClaude = () => messageReply(null, { toolUses: [{ name: 'coop_bench_preflight_lookup', input: { key: 'a' } }] });

describe('the live preflight', () => {
  it('passes against fakes that answer as the services do, one line per spec with what passed and its cost; built-in agents are skipped', async () => {
    const { openai, anthropic } = await fakes();
    const lines: string[] = [];
    const results = await runPreflight(['gpt-5', 'claude', 'oracle', 'gpt-5'].map(parseAgentSpec), modelOptions(openai, anthropic), (line) => lines.push(line));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(lines).toEqual([
      expect.stringMatching(/^preflight gpt-5 \(gpt-5\): ok \(tool call, tool result sent back with reasoning replayed, second answer\), \$0\.\d{4}$/),
      expect.stringMatching(
        /^preflight claude \(claude-[\w-]+\): ok \(tool call, tool result sent back with thinking replayed and cache breakpoints, second answer\), \$0\.\d{4}$/,
      ),
    ]);
    // Two requests a model, every one taken by the strict contracts, gpt-5's reasoning among them.
    expect([openai.preflights.length, anthropic.preflights.length, openai.refusals.length, anthropic.refusals.length]).toEqual([2, 2, 0, 0]);
    expect(JSON.stringify(openai.preflights[1]!.body.input)).toContain('"type":"reasoning"');
    expect(openai.requests).toEqual([]);
  });

  it("sends a thinking model's signed thinking back with the tool result", async () => {
    const { openai, anthropic } = await fakes();
    const lines: string[] = [];
    await runPreflight([parseAgentSpec('anthropic:claude-sonnet-5-5')], modelOptions(openai, anthropic), (line) => lines.push(line));
    expect(lines).toEqual([expect.stringContaining('tool result sent back with thinking replayed and cache breakpoints')]);
    expect(anthropic.refusals).toEqual([]);
  });

  it.each<{ rule: string; spec: string; script: (server: FakeOpenAIServer | FakeAnthropicServer) => void; said: RegExp }>([
    {
      rule: "a service that refuses gpt-5's reasoning replay",
      spec: 'gpt-5',
      script: (s) => s.enqueue(lookup(), errorReply(400, "Item 'rs_123' of type 'reasoning' was provided without its required following item.")),
      said: /FAILED model gpt-5 at 127\.0\.0\.1:\d+: request rejected \(400\): Item 'rs_123' of type 'reasoning' was provided without its required following item\. \(passed: tool call\)$/,
    },
    {
      rule: 'a model that declines',
      spec: 'claude',
      script: (s) => s.enqueue(messageReply(null, { refusal: 'This request was declined.' })),
      said: /FAILED the model declined: stop_reason refusal: This request was declined\.$/,
    },
    {
      rule: 'an OpenAI model stopped by the content filter after the tool result',
      spec: 'gpt-5',
      script: (s) => s.enqueue(lookup(), chatReply('', { finishReason: 'content_filter' })),
      said: /FAILED the model declined: incomplete_details\.reason content_filter \(passed: tool call, tool result sent back with reasoning replayed\)$/,
    },
    {
      rule: 'an answer without the tool call',
      spec: 'openai:gpt-4.1',
      script: (s) => s.enqueue('marmalade'),
      said: /FAILED the model answered without calling the tool \(stop reason stop\): an agent could not work$/,
    },
    {
      rule: 'a malformed tool call',
      spec: 'claude',
      script: (s) => s.enqueue(messageReply(null, { toolUses: [{ name: 'bash', input: { command: 'ls' } }] })),
      said: /FAILED the tool call is malformed: bash\(\{"command":"ls"\}\)$/,
    },
    {
      rule: 'a key the service rejects',
      spec: 'claude',
      script: (s) => s.enqueue({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } } as FakeReply),
      said: /FAILED model claude-[\w-]+ at 127\.0\.0\.1:\d+: the API key was rejected \(401\): check ANTHROPIC_API_KEY/,
    },
    {
      rule: 'an empty second answer',
      spec: 'claude',
      script: (s) => s.enqueue(lookupClaude(), messageReply(null)),
      said: /FAILED the second answer is empty \(passed: tool call, tool result sent back with thinking replayed and cache breakpoints\)$/,
    },
  ])('stops on $rule, in the provider\u2019s own words', async ({ spec, script, said }) => {
    const { openai, anthropic } = await fakes({ answersPreflight: false });
    script(spec.startsWith('claude') ? anthropic : openai);
    const lines: string[] = [];
    const run = runPreflight([parseAgentSpec(spec)], modelOptions(openai, anthropic), (line) => lines.push(line));
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(/the live preflight failed for .+: nothing was built or started; .*--no-preflight skips this check/);
    expect(lines).toEqual([expect.stringMatching(said)]);
  });

  it('goes through the model proxy for agent CLIs, to the streaming fakes they speak to', async () => {
    const anthropic: StreamServer = await startFakeAnthropicStream(() => ({ text: 'unused' }));
    const responses: StreamServer = await startFakeResponses(() => ({ text: 'unused' }));
    servers.push(anthropic, responses);
    const options = modelOptions({ url: `${responses.url}/v1` }, anthropic);
    const lines: string[] = [];
    await runPreflight(['claude-code', 'codex'].map(parseAgentSpec), options, (line) => lines.push(line));
    expect(lines).toEqual([
      expect.stringMatching(
        /^preflight claude-code \(claude-[\w-]+ through the model proxy\): ok \(tool call, tool result sent back with thinking replayed and cache breakpoints, second answer\), \$/,
      ),
      expect.stringMatching(/^preflight codex \([\w.-]+ through the model proxy\): ok \(tool call, tool result sent back, second answer\), \$/),
    ]);
    // The key is the proxy's to add: the fakes saw the user's, never the placeholder.
    expect(anthropic.requests.map((r) => r.headers['x-api-key'])).toEqual(['sk-ant-test-preflight-1', 'sk-ant-test-preflight-1']);
    // A provider the proxy cannot reach: the proxy's own error, in the preflight's line.
    const unreachable = modelOptions({ url: `${responses.url}/v1` }, { url: `http://127.0.0.1:${await closedPort()}` });
    const failed: string[] = [];
    await expect(runPreflight([parseAgentSpec('claude-code')], unreachable, (line) => failed.push(line))).rejects.toThrow(UserError);
    expect(failed).toEqual([expect.stringMatching(/^preflight claude-code .*: FAILED .*coop-bench could not reach the model API: .*cannot connect/)]);
  });
});

describe('coop-bench run with a model that fails the preflight', () => {
  it('stops before the sandbox backend is asked for anything: no image built, no container started, nothing stored', async () => {
    const { openai, anthropic } = await fakes({ answersPreflight: false });
    openai.enqueue(lookup(), errorReply(400, "Item 'rs_9' of type 'reasoning' was provided without its required following item."));
    const { io, lines: logged } = recordingIO();
    const runs = tempDir('preflight-runs');
    // Creating a backend builds and starts nothing; what it is asked to do afterwards is what counts.
    const askedOfBackend: string[] = [];
    const options = runOptions({
      name: 'preflight-stop',
      runsDir: runs,
      models: ['gpt-5'],
      settings: ['solo'],
      pools: ['argkit_task'],
      agentConfig: loadAgentConfig(undefined, { stepLimit: 5 }),
      testTimeoutMs: 60_000,
      modelOptions: modelOptions(openai, anthropic),
    });
    const run = runBenchmark(options, {
      createBackend: async () =>
        new Proxy({} as SandboxBackend, {
          get: (_backend, key) => (key === 'then' ? undefined : () => askedOfBackend.push(String(key))),
        }),
      io,
    });
    await expect(run).rejects.toThrow(/the live preflight failed for gpt-5/);
    expect(askedOfBackend).toEqual([]);
    expect(logged).toEqual([expect.stringContaining('FAILED model gpt-5 at 127.0.0.1')]);
    expect(logged[0]).toContain("Item 'rs_9' of type 'reasoning' was provided without its required following item.");
  });
});

describe('the command line', () => {
  it("doctor --live runs the preflight alone: a line per model and ready, or the provider's words and a non-zero exit", async () => {
    const { openai, anthropic } = await fakes();
    const env = modelOptions(openai, anthropic).env;
    const good = await coopBench(['doctor', '--live', '--models', 'gpt-5,claude'], { env });
    expect(good.exitCode, good.all).toBe(0);
    expect(good.stdout.split('\n')).toEqual([
      expect.stringMatching(/^preflight gpt-5 \(gpt-5\): ok \(/),
      expect.stringMatching(/^preflight claude \(claude-[\w-]+\): ok \(/),
      'ready: every model took the exchange a task makes',
    ]);
    const broken = await coopBench(['doctor', '--live', '--models', 'openai:gpt-9'], { env });
    expect(broken.exitCode).toBe(2);
    expect(broken.stdout).toMatch(/^preflight openai:gpt-9 \(gpt-9\): FAILED model gpt-9 at 127\.0\.0\.1:\d+: not found \(404\)/);
    expect(broken.stderr).toContain('the live preflight failed for openai:gpt-9');
  }, 300_000);

  it('run stops before anything is built when a model fails it, and --no-preflight skips it', async () => {
    const { openai, anthropic } = await fakes({ answersPreflight: false });
    const env = modelOptions(openai, anthropic).env;
    openai.enqueue(chatReply(null, { refusal: "I can't help with that." }));
    const runs = tempDir('preflight-cli');
    const stopped = await coopBench(['run', '--models', 'gpt-5', '--pool', 'argkit', '--features', '1,2', '--setting', 'solo', '--runs-dir', runs], { env });
    expect(stopped.exitCode).toBe(2);
    expect(stopped.all).toMatch(/preflight gpt-5 \(gpt-5\): FAILED the model declined: refusal: I can't help with that\./);
    expect(stopped.all).not.toMatch(/image|container/i);
    const skipped = await coopBench(['run', '--models', 'gpt-5', '--pool', 'argkit', '--features', '1,2', '--setting', 'solo', '--no-preflight', '--dry-run'], {
      env,
    });
    expect(skipped.exitCode, skipped.all).toBe(0);
    // The one scripted answer was the first preflight request's; --dry-run with --no-preflight sent nothing.
    expect(openai.requests).toHaveLength(1);
  }, 300_000);
});
