// Resolver model embedded through node-llama-cpp with a local GGUF file. node-llama-cpp is an
// optional peer dependency (with its platform packages it weighs gigabytes, and a lockfile cannot
// hold them all): looked up when the model is configured, so that a missing one is an error before
// any work, and imported on first use. Nothing is built or downloaded.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { oneLine } from '../bounded-text.ts';
import type { ResolverModel } from '../types.ts';
import { ResolverModelError } from './model-error.ts';

/** The folder of coop-bench's package.json: a clone, or the installed package. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The part of node-llama-cpp's API used here: its types are not installed with coop-bench.
interface Disposable {
  dispose(): unknown;
}
interface LlamaContext extends Disposable {
  getSequence(): Disposable;
}
interface LlamaModel extends Disposable {
  createContext(options: { contextSize: number }): Promise<LlamaContext>;
}
interface Llama extends Disposable {
  loadModel(options: { modelPath: string }): Promise<LlamaModel>;
}
interface LlamaCpp {
  getLlama(options: { build: 'never'; skipDownload: boolean; progressLogs: boolean }): Promise<Llama>;
  LlamaChatSession: new (options: { contextSequence: Disposable }) => {
    prompt(text: string, options: { temperature: number; maxTokens: number }): Promise<string>;
    setChatHistory(history: unknown[]): void;
  };
}

export interface LlamaCppResolverOptions {
  modelPath: string;
  maxTokens?: number;
  contextSize?: number;
}

interface Loaded {
  module: LlamaCpp;
  dispose(): Promise<void>;
  context: LlamaContext;
}

/** Throws ResolverModelError at once when the file or node-llama-cpp is missing; loads the model on first use. */
export function createLlamaCppResolverModel(options: LlamaCppResolverOptions): ResolverModel {
  const { modelPath } = options;
  let isFile = false;
  try {
    isFile = statSync(modelPath).isFile();
  } catch {
    // reported below
  }
  if (!isFile) throw new ResolverModelError(`resolver GGUF file not found: ${oneLine(modelPath, 200)}`);
  const entry = locateLlamaCpp();

  let loading: Promise<Loaded> | undefined;
  return {
    name: `gguf:${modelPath}`,
    async complete(prompt) {
      loading ??= load(entry, options);
      const { module, context } = await loading;
      const sequence = context.getSequence();
      try {
        // A fresh chat per region: no history from other regions. The session starts with
        // node-llama-cpp's default system prompt; it is cleared so that the model gets the one user
        // message the URL backend sends, and the model's own chat template does the rest.
        const session = new module.LlamaChatSession({ contextSequence: sequence });
        session.setChatHistory([]);
        return await session.prompt(prompt, { temperature: 0, maxTokens: options.maxTokens ?? 2048 });
      } catch (error) {
        throw new ResolverModelError(`GGUF model ${oneLine(modelPath, 120)} failed: ${oneLine(String((error as Error)?.message ?? error), 200)}`);
      } finally {
        sequence.dispose();
      }
    },
    async close() {
      const loaded = await loading?.catch(() => undefined);
      await loaded?.dispose();
    },
  };
}

/**
 * node-llama-cpp's entry file: beside this copy of coop-bench (an installed package), or in npm's
 * global folder (a clone: npm never installs a project's own optional peer dependency into it).
 */
function locateLlamaCpp(): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve('node-llama-cpp');
  } catch {
    try {
      return require.resolve('node-llama-cpp', { paths: [npmGlobalRoot()] });
    } catch {
      throw new ResolverModelError(`--resolver-gguf needs node-llama-cpp, which is not installed; install it with: ${llamaCppInstallCommand()}`);
    }
  }
}

function npmGlobalRoot(): string {
  return execFileSync('npm', ['root', '--global'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

/**
 * The npm command that puts node-llama-cpp where the coop-bench at `packageRoot` finds it: for a
 * clone, npm's global folder; for an installed package, beside it.
 */
export function llamaCppInstallCommand(packageRoot = PACKAGE_ROOT): string {
  const root = packageRoot.replace(/\/+$/, '');
  const { peerDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  const spec = `node-llama-cpp@${peerDependencies['node-llama-cpp']}`;
  const modules = dirname(root);
  if (basename(modules) !== 'node_modules') return `npm install --global ${spec}`;
  const owner = dirname(modules);
  // `npm install --global --prefix P` installs into P/lib/node_modules.
  if (basename(owner) === 'lib') return `npm install --global --prefix ${shellWord(dirname(owner))} ${spec}`;
  return `npm install --prefix ${shellWord(owner)} ${spec}`;
}

function shellWord(text: string): string {
  return /^[\w./@:+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

async function load(entry: string, options: LlamaCppResolverOptions): Promise<Loaded> {
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw new ResolverModelError(`${what}: ${oneLine(String((error as Error)?.message ?? error), 200)}`);
    }
  };
  const module = await step('cannot load node-llama-cpp', async () => (await import(pathToFileURL(entry).href)) as LlamaCpp);
  const llama = await step('node-llama-cpp has no usable prebuilt binary (it is never built or downloaded here)', () =>
    module.getLlama({ build: 'never', skipDownload: true, progressLogs: false }),
  );
  const model = await step(`cannot load GGUF model ${oneLine(options.modelPath, 120)}`, () => llama.loadModel({ modelPath: options.modelPath }));
  const context = await step('cannot create a llama.cpp context', () => model.createContext({ contextSize: options.contextSize ?? 4096 }));
  return {
    module,
    context,
    async dispose() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
