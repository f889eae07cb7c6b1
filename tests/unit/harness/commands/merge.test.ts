import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mergeCommand } from '../../../../harness/commands/merge.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { DEFAULT_RESOLVER_MODEL } from '../../../../resolver/index.ts';
import { importsCase, signatureCase, type CraftedCase } from '../../resolver/crafted-conflicts.ts';
import { makeRepo, type TestRepo } from '../../resolver/git-fixture.ts';

let server: FakeOpenAIServer;
let work: string;
const repos: TestRepo[] = [];
beforeAll(async () => {
  server = await startFakeVllm({ served: [DEFAULT_RESOLVER_MODEL, 'other'] });
  work = await mkdtemp(path.join(tmpdir(), 'resolver-test-cli-'));
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});
afterEach(async () => {
  server.reset();
  await Promise.all(repos.splice(0).map((r) => r.dispose()));
});

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const command = mergeCommand({
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    setExitCode: (value) => (code = value),
  });
  command.exitOverride().configureOutput({ writeErr: (text) => (stderr += text), writeOut: (text) => (stdout += text) });
  try {
    await command.parseAsync(args, { from: 'user' });
  } catch (error) {
    code = (error as { exitCode?: number }).exitCode ?? 99;
  }
  return { code, stdout, stderr };
}

/** A repository with the case's base, and the two agents' patches written to files. */
async function setUp(crafted: CraftedCase): Promise<{ repo: TestRepo; p1: string; p2: string }> {
  const repo = await makeRepo({ [crafted.path]: crafted.base });
  repos.push(repo);
  const p1 = path.join(work, `${repos.length}-1.patch`);
  const p2 = path.join(work, `${repos.length}-2.patch`);
  await writeFile(p1, await repo.patch({ [crafted.path]: crafted.ours, 'tests/test_new.py': 'def test(): pass\n' }));
  await writeFile(p2, await repo.patch({ [crafted.path]: crafted.theirs }));
  return { repo, p1, p2 };
}

describe('coop-bench merge', () => {
  it('prints the union patch on stdout and the summary on stderr', async () => {
    const { repo, p1, p2 } = await setUp(importsCase);
    const { code, stdout, stderr } = await run(p1, p2, '--repo', repo.dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^diff --git a\/tabulate\/render\.py b\/tabulate\/render\.py\n/);
    // The union keeps both sides, patch 2's first (upstream checks out agent2 and merges agent1).
    expect((await repo.applied(stdout, [importsCase.path]))[importsCase.path]!.toString()).toContain('import logging\nimport json\n');
    expect(stderr).toContain('merge: union (strategy union), 2 patches on HEAD');
    expect(stderr).toContain('tabulate/render.py  patch 1+2  naive conflicts 1  union');
    expect(stderr).toContain('dropped test files, patch 1: tests/test_new.py');
    expect(stderr).toContain('conflict regions: 1 (5 lines of context)');
    expect(stderr).toContain('llm stage: skipped: no resolver configured');
    expect(stderr).toMatch(/timings: apply \d+ ms, naive \d+ ms, structural \d+ ms, union \d+ ms, union-reversed \d+ ms, llm \d+ ms, merge total \d+ ms/);
  });

  it('runs the LLM stage directly when a resolver is configured, and writes --out', async () => {
    const { repo, p1, p2 } = await setUp(signatureCase);
    server.handle((request) => {
      const prompt: string = request.body.messages[0].content;
      return prompt
        .replace(/^[\s\S]*?```\n/, '')
        .replace(/```$/, '')
        .replace(/<<<<<<< patch_2\n.*\n=======\n.*\n>>>>>>> patch_1\n/, 'def format_table(rows, headers=None, align=None, padding=1):\n');
    });
    const out = path.join(work, 'merged.patch');
    const { code, stdout, stderr } = await run(
      p1,
      p2,
      '--repo',
      repo.dir,
      '--base',
      repo.base,
      '--resolver-url',
      server.url,
      '--context-lines',
      '3',
      '--out',
      out,
    );
    expect(stderr).toContain('merge: llm (strategy llm)');
    expect(stderr).toContain(`llm stage: accepted (Qwen2.5-Coder-0.5B-Merge-Resolver@${server.url}, 1 regions)`);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const applied = await repo.applied(await readFile(out, 'utf8'), [signatureCase.path]);
    expect(applied[signatureCase.path]!.toString()).toBe(signatureCase.resolved);
    expect(server.requests[0]!.body.messages[0].content).toContain('3 unchanged line(s) before the conflict');
  });

  it("keeps the union result when the model's answer is rejected", async () => {
    const { repo, p1, p2 } = await setUp(signatureCase);
    server.enqueue('no idea');
    const { code, stdout, stderr } = await run(p1, p2, '--repo', repo.dir, '--resolver-url', server.url, '--resolver-model', 'other');
    expect(code).toBe(0);
    expect(stderr).toContain('merge: union (strategy union)');
    expect(stderr).toMatch(/llm stage: rejected, union result kept: tabulate\/table\.py line \d+: changed text outside the region/);
    expect(stdout).toContain('+def format_table(rows, headers=None, padding=1):\n+def format_table(rows, headers=None, align=None):');
    expect(server.requests[0]!.body.model).toBe('other');
  });

  it('exits 1 on a merge that cannot be used', async () => {
    const { repo, p1 } = await setUp(signatureCase);
    const stale = path.join(work, 'stale.patch');
    await writeFile(stale, (await readFile(p1, 'utf8')).replace('-def format_table(rows, headers=None):', '-def nothing():'));
    const { code, stdout, stderr } = await run(p1, stale, '--repo', repo.dir);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^merge: missing_input, 2 patches on HEAD\n {2}reason: patch 2 does not apply to HEAD: error: patch failed/);
  });

  it.each([
    [
      'a missing patch file',
      (d: { repo: string; p1: string }) => [d.p1, path.join(work, 'nope.patch'), '--repo', d.repo],
      /^coop-bench merge: patch file not found: .*nope\.patch\n$/,
    ],
    [
      'a directory that is not a repository',
      (d: { repo: string; p1: string }) => [d.p1, d.p1, '--repo', work],
      /^coop-bench merge: .* is not a git repository/,
    ],
    [
      'an unknown base revision',
      (d: { repo: string; p1: string }) => [d.p1, d.p1, '--repo', d.repo, '--base', 'v9.9'],
      /^coop-bench merge: unknown base revision 'v9\.9'\n$/,
    ],
    [
      'a missing GGUF file',
      (d: { repo: string; p1: string }) => [d.p1, d.p1, '--repo', d.repo, '--resolver-gguf', '/no/model.gguf'],
      /^coop-bench merge: resolver GGUF file not found: \/no\/model\.gguf\n$/,
    ],
    ['a bad --context-lines', (d: { repo: string; p1: string }) => [d.p1, d.p1, '--repo', d.repo, '--context-lines', '-1'], /"-1" is not a whole number/],
  ])('gives a one-line error and a non-zero exit for %s', async (_name, args, message) => {
    const { repo, p1 } = await setUp(importsCase);
    const { code, stdout, stderr } = await run(...args({ repo: repo.dir, p1 }));
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names an unreachable resolver endpoint', async () => {
    const { repo, p1, p2 } = await setUp(importsCase);
    const gone = await startFakeVllm();
    await gone.close();
    const { code, stderr } = await run(p1, p2, '--repo', repo.dir, '--resolver-url', gone.url, '--resolver-timeout', '5');
    expect(code).toBe(2);
    expect(stderr).toBe(`coop-bench merge: resolver endpoint ${gone.url} is unreachable (ECONNREFUSED)\n`);
  });
});
