// A tool call's arguments as they go back to the provider in later requests. The model may write
// anything (truncated JSON, a bare string); the agent loop has already answered such a call with an
// error, and the history must stay a valid request: vLLM and llama-server parse the arguments of
// every earlier call and refuse the whole request when one is not JSON
// (github.com/vllm-project/vllm/issues/43995), and Anthropic wants an object. Every adapter replays
// the same cleaned arguments.

/** The arguments as a JSON object, or undefined when they are not one. */
export function argumentsObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return undefined;
}

/** JSON text of the arguments to replay: the model's own text when it is an object, else `{}`. */
export function replayArguments(raw: string): string {
  return argumentsObject(raw) ? raw : '{}';
}
