import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptOf,
  createLlamaCppResolverModel,
  createOpenAIResolverModel,
  DEFAULT_RESOLVER_MODEL,
  mergePatches,
  NO_RESOLVER,
  resolverModelFromOptions,
  runCascade,
  ResolverModelError,
  type MergeAttempt,
  type MergeInput,
  type MergeResult,
  type RegionResolution,
  type ResolverModel,
} from '../../../../resolver/index.ts';
import { errorReply, hangReply, startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { bracesCase, importsCase, signatureCase, type CraftedCase } from '../crafted-conflicts.ts';
import { makeRepo, type TestRepo } from '../git-fixture.ts';

let server: FakeOpenAIServer;
const repos: TestRepo[] = [];
beforeAll(async () => {
  server = await startFakeVllm({ served: [DEFAULT_RESOLVER_MODEL, 'm'] });
});
afterAll(() => server.close());
afterEach(async () => {
  server.reset();
  await Promise.all(repos.splice(0).map((r) => r.dispose()));
});

const model = () => createOpenAIResolverModel({ baseURL: server.url, model: DEFAULT_RESOLVER_MODEL, maxRetries: 0, timeoutMs: 2000 });

async function conflicted(crafted: CraftedCase): Promise<{ repo: TestRepo; input: MergeInput; union: MergeResult }> {
  const repo = await makeRepo({ [crafted.path]: crafted.base, 'other.txt': 'untouched\n' });
  repos.push(repo);
  const input = {
    repoDir: repo.dir,
    baseRev: repo.base,
    patches: [await repo.patch({ [crafted.path]: crafted.ours }), await repo.patch({ [crafted.path]: crafted.theirs })],
  };
  const union = await mergePatches(input);
  expect(union.status).toBe('union');
  return { repo, input, union };
}

/** The LLM stage as the cascade runs it after a union merge (without tests: no gate accepts the union). */
async function resolveWithModel(
  input: MergeInput,
  options: { model?: ResolverModel; contextLines?: number } = {},
): Promise<MergeAttempt & { regions: RegionResolution[] }> {
  const { attempts } = await runCascade(input, options);
  const llm = attemptOf(attempts, 'llm')!;
  return { ...llm, regions: (llm.details?.regions ?? []) as RegionResolution[] };
}

/** The excerpt the model saw, resolved: its context from the region, the resolution in between. */
function answerFor(union: MergeResult, resolution: string, k = 0): string {
  const region = union.conflictRegions[k]!;
  return region.before + resolution + region.after;
}

describe('resolveWithModel', () => {
  it('accepts a correct answer: only the region is replaced, and the result is a patch on the base', async () => {
    const { repo, input, union } = await conflicted(signatureCase);
    server.enqueue(answerFor(union, 'def format_table(rows, headers=None, align=None, padding=1):\n'));
    const result = await resolveWithModel(input, { model: model() });

    expect(result).toMatchObject({ outcome: 'merged', final: true });
    expect(result.reason).toBeUndefined();
    expect(result.result).toMatchObject({ status: 'llm', strategy: 'llm' });
    expect(result.result!.files[0]).toMatchObject({ path: signatureCase.path, outcome: 'llm', naiveConflicts: 1 });
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.regions).toHaveLength(1);
    expect(result.regions[0]).toMatchObject({ accepted: true, region: union.conflictRegions[0] });
    expect(result.details!.model).toBe(`${DEFAULT_RESOLVER_MODEL}@${server.url}`);
    const applied = await repo.applied(result.result!.patch, [signatureCase.path]);
    expect(applied[signatureCase.path]!.toString()).toBe(signatureCase.resolved);

    // One request per region, temperature 0, the marked block with 5 lines of context.
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({ model: DEFAULT_RESOLVER_MODEL, temperature: 0 });
    const prompt: string = body.messages[0].content;
    const region = union.conflictRegions[0]!;
    expect(prompt).toContain(region.before + region.marked + region.after);
    expect(region.before.split('\n')).toHaveLength(6);
  });

  it('resolves every region of a file (K&R vs Allman braces)', async () => {
    const { repo, input, union } = await conflicted(bracesCase);
    const resolvedLines = bracesCase.resolved.split('\n');
    // The fake answers with the correct file content of each excerpt, found by its context.
    server.handle((request) => {
      const prompt: string = request.body.messages[0].content;
      const k = union.conflictRegions.findIndex((r) => prompt.includes(r.before + r.marked + r.after));
      const region = union.conflictRegions[k]!;
      const startIndex = bracesCase.resolved.indexOf(region.before) + region.before.length;
      const endIndex = bracesCase.resolved.indexOf(region.after, startIndex);
      return answerFor(union, bracesCase.resolved.slice(startIndex, endIndex), k);
    });
    const result = await resolveWithModel(input, { model: model() });
    expect(resolvedLines.length).toBeGreaterThan(0);
    expect(result.outcome).toBe('merged');
    expect(server.requests).toHaveLength(union.conflictRegions.length);
    expect((await repo.applied(result.result!.patch, [bracesCase.path]))[bracesCase.path]!.toString()).toBe(bracesCase.resolved);
  });

  it.each([
    ['garbage', 'lorem ipsum dolor sit amet', /^tabulate\/render\.py line \d+: changed text outside the region/],
    ['control characters', '\u0000\u0001\u0002', /garbage: control character/],
    ['an empty answer', '', /empty answer$/],
  ])('rejects %s and keeps the union result', async (_name, answer, reason) => {
    const { input } = await conflicted(importsCase);
    server.enqueue(answer);
    const result = await resolveWithModel(input, { model: model() });
    expect(result).toMatchObject({ outcome: 'rejected', final: false });
    expect(result.result).toBeUndefined();
    expect(result.reason).toMatch(reason);
    expect(result.regions[0]).toMatchObject({ accepted: false, answer });
  });

  it('rejects an answer that leaves conflict markers in', async () => {
    const { input, union } = await conflicted(importsCase);
    server.enqueue(answerFor(union, union.conflictRegions[0]!.marked));
    const result = await resolveWithModel(input, { model: model() });
    expect(result.outcome).toBe('rejected');
    expect(result.result).toBeUndefined();
    expect(result.reason).toMatch(/conflict markers left in answer/);
  });

  it('rejects an answer that edits outside the region', async () => {
    const { input, union } = await conflicted(importsCase);
    const region = union.conflictRegions[0]!;
    server.enqueue(region.before + 'import json\nimport logging\n' + region.after.replace('def render(value):', 'def render(value, width):'));
    const result = await resolveWithModel(input, { model: model() });
    expect(result.outcome).toBe('rejected');
    expect(result.reason).toMatch(/changed text outside the region: context line \d after the conflict differs/);
  });

  it('needs every region accepted, and stops at the first rejected one', async () => {
    const base = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');
    const twoRegions: CraftedCase = {
      name: 'two regions',
      path: 'two.txt',
      base,
      resolved: '',
      ours: base.replace('line 3\n', 'three A\n').replace('line 25\n', 'twenty-five A\n'),
      theirs: base.replace('line 3\n', 'three B\n').replace('line 25\n', 'twenty-five B\n'),
    };
    const { input, union } = await conflicted(twoRegions);
    expect(union.conflictRegions).toHaveLength(2);
    server.enqueue(answerFor(union, 'three AB\n', 0), 'nonsense', 'never asked');
    const result = await resolveWithModel(input, { model: model() });
    expect(result.outcome).toBe('rejected');
    expect(result.reason).toMatch(/^two\.txt line 29: changed text outside the region/);
    expect(result.regions.map((r) => r.accepted)).toEqual([true, false]);
    expect(server.requests).toHaveLength(2);
  });

  it('does not send a conflict too long for the resolver, rather than cut it: the union result stands', async () => {
    const base = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join('');
    const side = (tag: string) => Array.from({ length: 20_000 }, (_, i) => `${tag} ${i} ${'z'.repeat(40)}\n`).join('');
    const huge: CraftedCase = {
      name: 'huge',
      path: 'huge.txt',
      base,
      resolved: '',
      ours: base.replace('line 10\n', side('A')),
      theirs: base.replace('line 10\n', side('B')),
    };
    const { input } = await conflicted(huge);
    server.handle(() => 'never asked');
    const result = await resolveWithModel(input, { model: model() });
    expect(result.outcome).toBe('rejected');
    expect(result.reason).toMatch(
      /^huge\.txt line \d+: its prompt would be 1,938,546 characters, over the 8,000 a resolver is sent \(a conflict is never cut\), so it was not sent$/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('is skipped without a model, and does not run when there is nothing to resolve', async () => {
    const { input, repo } = await conflicted(importsCase);
    expect(await resolveWithModel(input)).toMatchObject({ outcome: 'skipped', reason: NO_RESOLVER, regions: [] });
    const clean = { ...input, patches: [input.patches[0]!, await repo.patch({ 'other.txt': 'changed\n' })] };
    expect((await runCascade(clean, { model: model() })).attempts.map((a) => a.stage)).toEqual(['naive']);
    expect(server.requests).toHaveLength(0);
  });

  it('keeps CRLF line endings (git adds the final newline to conflicted sides, as for union)', async () => {
    const base = 'a\r\nb\r\nc\r\nlast';
    const crlf: CraftedCase = {
      name: 'crlf',
      path: 'win.txt',
      base,
      ours: base.replace('last', 'last A'),
      theirs: base.replace('last', 'last B'),
      resolved: '',
    };
    const { repo, input } = await conflicted(crlf);
    server.enqueue('a\nb\nc\nlast AB\n'); // models answer with \n; the file's own endings are kept
    const result = await resolveWithModel(input, { model: model() });
    expect(result.outcome).toBe('merged');
    expect((await repo.applied(result.result!.patch, ['win.txt']))['win.txt']!.toString()).toBe('a\r\nb\r\nc\r\nlast AB\r\n');
  });

  it('honours the context size', async () => {
    const { input } = await conflicted(signatureCase);
    const union = await mergePatches(input, { contextLines: 1 });
    server.enqueue(answerFor(union, 'def format_table(rows, headers=None, align=None, padding=1):\n'));
    const result = await resolveWithModel(input, { model: model(), contextLines: 1 });
    expect(result.outcome).toBe('merged');
    expect(result.regions[0]!.region.before).toBe('\n');
    expect(server.requests[0]!.body.messages[0].content).toContain('1 unchanged line(s) before the conflict and 1 after it');
  });
});

describe('OpenAI-compatible backend errors', () => {
  it('an unreachable endpoint is a one-line error naming the URL', async () => {
    const gone = await startFakeVllm();
    await gone.close();
    const unreachable = createOpenAIResolverModel({ baseURL: gone.url, model: 'm', maxRetries: 0 });
    const error = await unreachable.complete('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResolverModelError);
    expect((error as Error).message).toBe(`resolver endpoint ${gone.url} is unreachable (ECONNREFUSED)`);
  });

  it('an HTTP error and a hanging endpoint are one-line errors', async () => {
    server.enqueue(errorReply(500, 'model crashed\nwith a trace'));
    const error = (await model()
      .complete('x')
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^resolver endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 500: [^\n]*model crashed with a trace/);

    server.enqueue(hangReply);
    const slow = createOpenAIResolverModel({ baseURL: server.url, model: 'm', maxRetries: 0, timeoutMs: 300 });
    await expect(slow.complete('x')).rejects.toThrow(`resolver endpoint ${server.url} did not answer within 0.3 s`);
  });

  it('a bare host URL gets /v1, and the API key comes from COOP_BENCH_RESOLVER_API_KEY', async () => {
    process.env.COOP_BENCH_RESOLVER_API_KEY = 'secret-test-key';
    try {
      const bare = createOpenAIResolverModel({ baseURL: server.url.replace(/\/v1$/, ''), model: 'm', maxRetries: 0 });
      server.enqueue('ok');
      expect(await bare.complete('x')).toBe('ok');
      expect(server.requests[0]!.path).toBe('/v1/chat/completions');
      expect(server.requests[0]!.headers.authorization).toBe('Bearer secret-test-key');
    } finally {
      delete process.env.COOP_BENCH_RESOLVER_API_KEY;
    }
  });
});

describe('resolverModelFromOptions and the node-llama-cpp backend', () => {
  it('maps CLI options to a backend, or none', () => {
    expect(resolverModelFromOptions({})).toBeUndefined();
    expect(resolverModelFromOptions({ resolverUrl: 'http://127.0.0.1:1/v1' })!.name).toBe(`${DEFAULT_RESOLVER_MODEL}@http://127.0.0.1:1/v1`);
    expect(() => resolverModelFromOptions({ resolverUrl: 'http://x', resolverGguf: 'm.gguf' })).toThrow(
      'use either --resolver-url or --resolver-gguf, not both',
    );
    expect(() => resolverModelFromOptions({ resolverUrl: 'not a url' })).toThrow("invalid resolver URL 'not a url'");
  });

  it('a missing GGUF file is a one-line error at once', () => {
    const missing = path.join(tmpdir(), 'no-such-resolver-model.gguf');
    expect(() => resolverModelFromOptions({ resolverGguf: missing })).toThrow(new ResolverModelError(`resolver GGUF file not found: ${missing}`));
  });

  it('a file that is not a GGUF model, or no node-llama-cpp, is a one-line error (nothing downloaded or built)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'resolver-test-gguf-'));
    const file = path.join(dir, 'broken.gguf');
    await writeFile(file, 'not a model\n');
    try {
      // node-llama-cpp is an optional peer dependency: without it, the error comes at once.
      const broken = await Promise.resolve()
        .then(() => createLlamaCppResolverModel({ modelPath: file }))
        .catch((e: unknown) => e as Error);
      const error = broken instanceof Error ? broken : ((await broken.complete('x').catch((e: unknown) => e)) as Error);
      if (!(broken instanceof Error)) await broken.close?.();
      expect(error).toBeInstanceOf(ResolverModelError);
      expect(error.message).toMatch(
        /^(cannot load GGUF model .*broken\.gguf: |--resolver-gguf needs node-llama-cpp, which is not installed; install it with: npm install |node-llama-cpp has no usable prebuilt binary)/,
      );
      expect(error.message).not.toContain('\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
