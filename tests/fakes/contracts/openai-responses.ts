// What OpenAI's Responses API refuses, and the reasoning items a fake hands out and checks when they
// come back. A pure function of the request and the ledger, so a streaming endpoint can call it too.
import { countTokens, type ModelLimits } from './limits.ts';
import { openaiEffortRejection, openaiRejection, type Rejection } from './rejection.ts';

interface InputItem {
  type?: string;
  role?: string;
  id?: string;
  call_id?: string;
  encrypted_content?: string | null;
}

/**
 * The reasoning items this server produced and the items that came after them. Their encrypted
 * content is opaque to the client and only this server can read it back (OpenAI cookbook "Better
 * performance from reasoning models using the Responses API", "Encrypted reasoning items": with
 * store=false, include=["reasoning.encrypted_content"] and pass the output items back, `context +=
 * response.output`).
 */
export class ReasoningLedger {
  private readonly issued = new Map<string, { encrypted: string; stored: boolean; following?: string }>();
  /** message or function_call item id -> the reasoning item that came before it in the same output. */
  private readonly itemReasoning = new Map<string, string>();
  private count = 0;

  issue(stored: boolean): { id: string; encrypted: string } {
    const id = `rs_fake_${++this.count}`;
    const encrypted = `gAAAA${Buffer.from(`${id}:${Math.random().toString(36).slice(2)}`).toString('base64')}`;
    this.issued.set(id, { encrypted, stored });
    return { id, encrypted };
  }

  /** An answer's output items, in order: each reasoning item's following item, each item's reasoning. */
  recordOutput(output: { type: string; id: string }[]): void {
    let reasoning: string[] = [];
    let last: string | undefined;
    for (const item of output) {
      if (item.type === 'reasoning') {
        reasoning.push(item.id);
        last = item.id;
        continue;
      }
      for (const id of reasoning) this.issued.get(id)!.following = item.id;
      reasoning = [];
      if (last) this.itemReasoning.set(item.id, last);
    }
  }

  /** Why the API would refuse this reasoning item, if it would. */
  problem(item: InputItem, store: boolean): Rejection | undefined {
    const known = item.id ? this.issued.get(item.id) : undefined;
    if (item.encrypted_content) {
      // github.com/maximhq/bifrost/issues/5186: content minted for another id "could not be verified".
      if (!known || known.encrypted !== item.encrypted_content) {
        return openaiRejection(400, `The encrypted content for item ${item.id} could not be verified.`, 'input', 'invalid_encrypted_content');
      }
      return undefined;
    }
    // Without its encrypted content an item is looked up by id, which works only if it was stored
    // (github.com/vercel/ai/issues/7543, github.com/anomalyco/opencode/issues/7724).
    if (!store || !known?.stored) return notStored(item.id, store);
    return undefined;
  }

  /** The id of the item that followed this reasoning item in its output (none: it was the last). */
  followingOf(reasoningId: string | undefined): string | undefined {
    return reasoningId ? this.issued.get(reasoningId)?.following : undefined;
  }

  reasoningFor(itemId: string | undefined): string | undefined {
    return itemId ? this.itemReasoning.get(itemId) : undefined;
  }
}

function notStored(id: string | undefined, store: boolean): Rejection {
  return openaiRejection(
    404,
    `Item with id '${id}' not found.${store ? '' : ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.'}`,
    'input',
  );
}

/** An item a model writes: a message of the assistant, a function or custom tool call. */
function isOutputItem(item: InputItem): boolean {
  return (
    item.type === 'function_call' || item.type === 'custom_tool_call' || (item.role === 'assistant' && (item.type === undefined || item.type === 'message'))
  );
}

export function responsesPromptTokens(body: { input?: unknown; instructions?: unknown; tools?: unknown }): number {
  return countTokens(body.input) + countTokens(body.instructions) + countTokens(body.tools);
}

export function checkResponsesRequest(body: any, limits: ModelLimits | undefined, ledger: ReasoningLedger): Rejection | undefined {
  // API reference, "Create a model response": model is required; input is a string or a list of items.
  if (typeof body?.model !== 'string' || body.model === '')
    return openaiRejection(400, "Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) {
    return openaiRejection(400, "Invalid type for 'input': expected a string or an array of input items.", 'input', 'invalid_type');
  }
  const items: InputItem[] = typeof body.input === 'string' ? [{ role: 'user' }] : body.input;
  const store = body.store !== false; // the API's default is to store
  // With previous_response_id the calls being answered live in the stored response, not the input.
  const continues = typeof body.previous_response_id === 'string';
  // Without tools, the Responses API takes tool_choice "auto" or "none" (the model answers in text)
  // and refuses "required" or a named tool: checked against OpenAI's service in
  // github.com/vllm-project/vllm/pull/40399. Chat Completions refuses any tool_choice without
  // tools (contracts/openai-chat.ts).
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== 'auto' && choice !== 'none' && !(Array.isArray(body.tools) && body.tools.length > 0)) {
    const kind = typeof choice === 'string' ? choice : String(choice?.type);
    return openaiRejection(400, `Tool choice '${kind}' must be specified with 'tools' parameter.`, 'tool_choice');
  }

  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (item.type === 'item_reference') {
      // An item sent by id alone is looked up among stored items: none with store=false (vercel/ai#7543).
      if (!store) return notStored(item.id, store);
    } else if (item.type === 'reasoning') {
      const problem = ledger.problem(item, store);
      if (problem) return problem;
      // A reasoning item goes with the item that followed it in its output, matched by that item's
      // id: a following item without it, or none, is a 400 (github.com/OpenHands/software-agent-sdk/
      // pull/1754, github.com/openai/openai-node/issues/1567, github.com/langchain-ai/langchainjs/
      // pull/9082, github.com/coder/mux/pull/59). Reasoning items of one output come back together.
      const next = items.slice(i + 1).find((later) => later.type !== 'reasoning');
      const following = ledger.followingOf(item.id);
      if (following === undefined || next?.id !== following) {
        return openaiRejection(400, `Item '${item.id}' of type 'reasoning' was provided without its required following item.`, 'input');
      }
    } else if (isOutputItem(item)) {
      // The reverse: an item that came after a reasoning item, sent with its id but without that
      // reasoning item (github.com/continuedev/continue/issues/12620, github.com/VRSEN/agency-swarm/issues/367).
      const reasoning = ledger.reasoningFor(item.id);
      if (reasoning && !items.slice(0, i).some((earlier) => earlier.type === 'reasoning' && earlier.id === reasoning)) {
        const type = item.type ?? 'message';
        return openaiRejection(400, `Item '${item.id}' of type '${type}' was provided without its required 'reasoning' item: '${reasoning}'.`, 'input');
      }
      if (item.type === 'function_call' || item.type === 'custom_tool_call') calls.add(String(item.call_id));
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      // github.com/continuedev/continue/issues/10092; custom tools (Codex's apply_patch) pair the same way
      if (!continues && !calls.has(String(item.call_id))) {
        return openaiRejection(400, `No tool call found for function call output with call_id ${item.call_id}.`, 'input');
      }
      answered.add(String(item.call_id));
    }
  }
  // github.com/router-for-me/CLIProxyAPI/issues/2368, github.com/openai/codex/issues/620
  const unanswered = [...calls].find((id) => !answered.has(id));
  if (unanswered) return openaiRejection(400, `No tool output found for function call ${unanswered}.`, 'input');

  const effort = openaiEffortRejection('reasoning.effort', body.reasoning?.effort, limits);
  if (effort) return effort;
  if (limits?.reasoning && body.temperature !== undefined) {
    return openaiRejection(400, "Unsupported parameter: 'temperature' is not supported with this model.", 'temperature', 'unsupported_parameter');
  }
  if (limits && typeof body.max_output_tokens === 'number' && body.max_output_tokens > limits.maxOutput) {
    return openaiRejection(
      400,
      `Invalid 'max_output_tokens': integer above maximum value. Expected a value <= ${limits.maxOutput}, but got ${body.max_output_tokens} instead.`,
      'max_output_tokens',
      'integer_above_max_value',
    );
  }
  if (limits && responsesPromptTokens(body) > limits.inputLimit) {
    // github.com/dyad-sh/dyad/issues/1672
    return openaiRejection(
      400,
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      'input',
      'context_length_exceeded',
    );
  }
  return undefined;
}
