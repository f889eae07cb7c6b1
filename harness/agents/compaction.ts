// How the agent keeps its conversation within the model's window without breaking the protocol: a
// summary request is the history up to a point where every tool call is answered (a request with an
// unanswered call is refused by OpenAI and Anthropic alike), with the same tools (Anthropic refuses
// tool blocks without tool definitions) and long tool outputs cut, so that it fits where the full
// history does not. What comes after that point is kept verbatim.
import type { ChatMessage, ToolSpec } from '../models/types.ts';
import { argumentsObject } from '../models/tool-arguments.ts';

/** Tool outputs and arguments longer than this are cut in the middle in a summary request. */
const ELIDE_OVER = 4000;

/**
 * Tokens per character of the requests a model has seen, learned from the usage it reports: the
 * agent estimates the next prompt with it. Until the first answer, 1 token per 3 characters (code
 * tokenizes denser than prose: cautious).
 */
export class TokenMeter {
  private tokensPerChar = 1 / 3;

  observe(chars: number, tokens: number): void {
    if (chars > 0 && tokens > 0) this.tokensPerChar = tokens / chars;
  }

  estimate(request: { system?: string; messages: ChatMessage[]; tools?: ToolSpec[] }): number {
    return Math.ceil(requestChars(request) * this.tokensPerChar);
  }
}

/** Characters of what the model reads (replayed reasoning is opaque and left out). */
export function requestChars(request: { system?: string; messages: ChatMessage[]; tools?: ToolSpec[] }): number {
  let chars = (request.system ?? '').length + JSON.stringify(request.tools ?? []).length;
  for (const message of request.messages) {
    chars += message.content.length;
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return chars;
}

/** Where the history may be cut, largest first: every tool call before the cut has its result. */
export function cutPoints(history: ChatMessage[]): number[] {
  const cuts: number[] = [];
  for (let i = history.length; i >= 2; i--) if (i === history.length || history[i]!.role !== 'tool') cuts.push(i);
  return cuts;
}

function elide(text: string): string {
  if (text.length <= ELIDE_OVER) return text;
  const head = Math.floor(ELIDE_OVER / 2);
  const tail = Math.floor(ELIDE_OVER / 3);
  return `${text.slice(0, head)}\n[... ${text.length - head - tail} characters left out of this summary request ...]\n${text.slice(-tail)}`;
}

/** The messages with long tool outputs and long argument values cut (arguments stay a JSON object). */
export function elided(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (message.role === 'tool') return { ...message, content: elide(message.content) };
    if (message.role !== 'assistant' || !message.toolCalls?.length) return message;
    const toolCalls = message.toolCalls.map((call) => {
      const args = argumentsObject(call.arguments);
      if (!args || call.arguments.length <= ELIDE_OVER) return call;
      const short = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, typeof value === 'string' ? elide(value) : value]));
      return { ...call, arguments: JSON.stringify(short) };
    });
    return { ...message, toolCalls };
  });
}
