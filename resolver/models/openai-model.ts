// Resolver model behind any OpenAI-compatible endpoint (llama.cpp server, vLLM, Ollama).
import type OpenAI from 'openai';
import { oneLine } from '../bounded-text.ts';
import type { ResolverModel } from '../types.ts';
import { ResolverModelError } from './model-error.ts';

export interface OpenAIResolverOptions {
  /** e.g. http://127.0.0.1:8080/v1 ; a bare host URL gets /v1 appended. */
  baseURL: string;
  model: string;
  /** Default: COOP_BENCH_RESOLVER_API_KEY, else a placeholder (local servers ignore it). */
  apiKey?: string;
  /** Per request (default 60 s: a small local model answers one region well within it). */
  timeoutMs?: number;
  maxRetries?: number;
  maxTokens?: number;
}

export function createOpenAIResolverModel(options: OpenAIResolverOptions): ResolverModel {
  const baseURL = normalizeBaseURL(options.baseURL);
  const timeoutMs = options.timeoutMs ?? 60_000;
  // The SDK is loaded at the first conflict sent: a run without one never loads it.
  let connection: Promise<{ sdk: typeof OpenAI; client: OpenAI }> | undefined;
  const connect = async () => {
    const { default: sdk } = await import('openai');
    const apiKey = options.apiKey ?? process.env.COOP_BENCH_RESOLVER_API_KEY ?? 'no-key';
    return { sdk, client: new sdk({ baseURL, apiKey, timeout: timeoutMs, maxRetries: options.maxRetries ?? 1 }) };
  };
  return {
    name: `${options.model}@${baseURL}`,
    async complete(prompt) {
      const { sdk, client } = await (connection ??= connect());
      let response: OpenAI.Chat.Completions.ChatCompletion;
      try {
        response = await client.chat.completions.create({
          model: options.model,
          messages: [{ role: 'user', content: prompt }],
          temperature: 0,
          max_tokens: options.maxTokens ?? 2048,
        });
      } catch (error) {
        throw new ResolverModelError(describeFailure(sdk, error, baseURL, timeoutMs));
      }
      if (!Array.isArray(response?.choices)) {
        throw new ResolverModelError(`resolver endpoint ${baseURL} did not answer with a chat completion`);
      }
      return response.choices[0]?.message?.content ?? '';
    },
  };
}

function normalizeBaseURL(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ResolverModelError(`invalid resolver URL '${oneLine(raw, 100)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ResolverModelError(`invalid resolver URL '${oneLine(raw, 100)}': use http or https`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1';
  return url.toString().replace(/\/$/, '');
}

function describeFailure(sdk: typeof OpenAI, error: unknown, baseURL: string, timeoutMs: number): string {
  if (error instanceof sdk.APIConnectionTimeoutError) return `resolver endpoint ${baseURL} did not answer within ${timeoutMs / 1000} s`;
  if (error instanceof sdk.APIConnectionError) {
    // fetch wraps the socket error: TypeError('fetch failed') with the system error as its cause.
    const cause = error.cause as { code?: string; cause?: { code?: string; message?: string } } | undefined;
    const detail = cause?.code ?? cause?.cause?.code ?? cause?.cause?.message;
    return `resolver endpoint ${baseURL} is unreachable${detail ? ` (${oneLine(detail, 80)})` : ''}`;
  }
  if (error instanceof sdk.APIError) return `resolver endpoint ${baseURL} answered HTTP ${error.status}: ${oneLine(error.message, 200)}`;
  return `resolver endpoint ${baseURL} failed: ${oneLine(String((error as Error)?.message ?? error), 200)}`;
}
