// Resolver model embedded through node-llama-cpp with a local GGUF file. node-llama-cpp is an
// optional dependency, loaded only when this backend is used; nothing is built or downloaded.
import { statSync } from 'node:fs';
import { oneLine } from '../bounded-text.ts';
import type { ResolverModel } from '../types.ts';
import { ResolverModelError } from './model-error.ts';

import type { LlamaContext } from 'node-llama-cpp'; // type only: erased at run time

type LlamaCpp = typeof import('node-llama-cpp');

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

/** Throws ResolverModelError at once when the file is missing; loads the model on first use. */
export function createLlamaCppResolverModel(options: LlamaCppResolverOptions): ResolverModel {
  const { modelPath } = options;
  let isFile = false;
  try {
    isFile = statSync(modelPath).isFile();
  } catch {
    // reported below
  }
  if (!isFile) throw new ResolverModelError(`resolver GGUF file not found: ${oneLine(modelPath, 200)}`);

  let loading: Promise<Loaded> | undefined;
  return {
    name: `gguf:${modelPath}`,
    async complete(prompt) {
      loading ??= load(options);
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

async function load(options: LlamaCppResolverOptions): Promise<Loaded> {
  let module: LlamaCpp;
  try {
    module = await import('node-llama-cpp');
  } catch {
    throw new ResolverModelError('node-llama-cpp is not installed (optional dependency); install it or use --resolver-url');
  }
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw new ResolverModelError(`${what}: ${oneLine(String((error as Error)?.message ?? error), 200)}`);
    }
  };
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
