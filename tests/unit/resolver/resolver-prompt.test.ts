// The resolver's prompt: a template file (--resolver-prompt), and the same messages on both backends
// (the URL backend sends one user message; node-llama-cpp must not add its default system prompt).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RESOLVER_MODEL, resolverModelFromOptions, ResolverModelError } from '../../../resolver/index.ts';
import { buildPrompt, loadPromptTemplate } from '../../../resolver/llm-prompt.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../../fakes/openai-server.ts';

/**
 * node-llama-cpp as far as the GGUF backend uses it; a session starts with a system prompt, as the
 * real one does. It is an optional peer dependency found in npm's global folder for a clone, so the
 * fake is installed there: a global prefix of this test's own (npm reads npm_config_prefix).
 */
const FAKE_LLAMA_CPP = `
export class LlamaChatSession {
  history = [{ type: 'system', text: 'You are a helpful, respectful and honest assistant.' }];
  setChatHistory(history) { this.history = history; }
  async prompt(prompt) { globalThis.fakeLlamaChats.push({ history: this.history, prompt }); return 'x = 1\\n'; }
}
const context = { getSequence: () => ({ dispose: () => {} }), dispose: async () => {} };
const model = { createContext: async () => context, dispose: async () => {} };
export const getLlama = async () => ({ loadModel: async () => model, dispose: async () => {} });
`;
const chats: { history: unknown[]; prompt: string }[] = [];
(globalThis as { fakeLlamaChats?: unknown[] }).fakeLlamaChats = chats;

let server: FakeOpenAIServer;
let dir: string;
beforeAll(async () => {
  server = await startFakeVllm({ served: [DEFAULT_RESOLVER_MODEL] });
  dir = await mkdtemp(path.join(tmpdir(), 'resolver-prompt-'));
  const fake = path.join(dir, 'prefix', 'lib', 'node_modules', 'node-llama-cpp');
  await mkdir(fake, { recursive: true });
  await writeFile(path.join(fake, 'package.json'), JSON.stringify({ name: 'node-llama-cpp', version: '3.22.1', main: 'index.js', type: 'module' }));
  await writeFile(path.join(fake, 'index.js'), FAKE_LLAMA_CPP);
  vi.stubEnv('npm_config_prefix', path.join(dir, 'prefix'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const parts = { before: ['import os\n'], ours: ['x = 1\n'], theirs: ['x = 2\n'], after: ['print(x)\n'] };
const labels = { ours: 'patch_1', base: 'base', theirs: 'patch_2' };

describe('the resolver prompt', () => {
  it('comes from a template file given with --resolver-prompt', async () => {
    const file = path.join(dir, 'terse.txt');
    await writeFile(file, 'Merge {{file}}:\n{{fence}}\n{{excerpt}}{{fence}}\n');
    expect(buildPrompt('a.py', parts, labels, loadPromptTemplate(file))).toBe(
      'Merge a.py:\n```\nimport os\n<<<<<<< patch_1\nx = 1\n=======\nx = 2\n>>>>>>> patch_2\nprint(x)\n```',
    );
    expect(buildPrompt('a.py', parts, labels)).toMatch(/^Resolve the merge conflict in this excerpt of the file a\.py\./);
  });

  it('refuses a template that cannot serve, with one line', async () => {
    const unknown = path.join(dir, 'unknown.txt');
    await writeFile(unknown, 'Merge {{path}}: {{excerpt}}');
    const blind = path.join(dir, 'blind.txt');
    await writeFile(blind, 'Merge {{file}}.');
    expect(() => loadPromptTemplate(unknown)).toThrow(/^resolver prompt .*unknown\.txt: unknown value \{\{path\}\}; use \{\{file\}\}/);
    expect(() => loadPromptTemplate(blind)).toThrow(/blind\.txt: it never shows the conflict \(\{\{excerpt\}\}\)$/);
    expect(() => resolverModelFromOptions({ resolverPrompt: path.join(dir, 'absent.txt') })).toThrow(ResolverModelError);
  });

  it('reaches the model as the same single user message on both backends, with no system prompt', async () => {
    const file = path.join(dir, 'both.txt');
    await writeFile(file, 'Resolve:\n{{excerpt}}');
    const gguf = path.join(dir, 'resolver.gguf');
    await writeFile(gguf, 'not read: node-llama-cpp is a fake');
    const prompt = buildPrompt('a.py', parts, labels, loadPromptTemplate(file));

    server.enqueue('x = 1\n');
    const url = resolverModelFromOptions({ resolverUrl: server.url, resolverModel: DEFAULT_RESOLVER_MODEL, resolverPrompt: file })!;
    await url.complete(buildPrompt('a.py', parts, labels, url.promptTemplate));
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: prompt }]);

    const local = resolverModelFromOptions({ resolverGguf: gguf, resolverPrompt: file })!;
    await local.complete(buildPrompt('a.py', parts, labels, local.promptTemplate));
    expect(chats).toEqual([{ history: [], prompt }]);
    await local.close?.();
  });
});
