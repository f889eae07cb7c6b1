// What Anthropic's Messages API refuses, and how its prompt cache bills a request. Pure functions
// of the request (and of the cache's state), so that a streaming endpoint can call them too.
import { createHash } from 'node:crypto';
import { countTokens, type ModelLimits } from './limits.ts';
import { anthropicRejection, type Rejection } from './rejection.ts';

interface Block {
  type?: string;
  text?: unknown;
  id?: string;
  tool_use_id?: string;
  cache_control?: { type?: string; ttl?: string } | null;
}

interface Message {
  role?: string;
  content?: unknown;
}

const blocksOf = (content: unknown): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);
const isBlank = (text: unknown) => typeof text !== 'string' || text.trim() === '';

/** The prompt in the order the cache sees it: tools, then system, then the messages' blocks. */
function promptBlocks(body: any): Block[] {
  return [
    ...(Array.isArray(body.tools) ? body.tools : []),
    ...blocksOf(body.system),
    ...(Array.isArray(body.messages) ? body.messages : []).flatMap((m: Message) => blocksOf(m.content)),
  ];
}

const blockTokens = (block: Block) => {
  const { cache_control: _, ...content } = block;
  return countTokens(content);
};

/** The prompt's size by the fakes' tokenizer: the sum of its blocks. */
export function messagesPromptTokens(body: any): number {
  return promptBlocks(body).reduce((sum, block) => sum + blockTokens(block), 0);
}

export function checkMessagesRequest(body: any, limits: ModelLimits | undefined): Rejection | undefined {
  const reject = (message: string) => anthropicRejection(400, message);
  // Messages API reference: model and max_tokens (an integer, at least 1) are required, and
  // messages alternate user/assistant from a user turn (a request opening with an assistant turn
  // or with a "system" role message is a 400: github.com/lobehub/lobehub/issues/1601,
  // github.com/tonyljx/TextWordExplain/issues/2).
  if (typeof body?.model !== 'string' || body.model === '') return reject('model: Field required');
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return reject('max_tokens: Field required (an integer >= 1)');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return reject('messages: at least one message is required');
  const roles = checkRoles(body.messages, limits);
  if (roles) return reject(roles);
  if (body.messages[0].role !== 'user') return reject('messages: first message must use the "user" role');
  if (limits && body.max_tokens > limits.maxOutput) {
    // The models overview lists each model's output limit; larger requests are refused.
    return reject(`max_tokens: ${body.max_tokens} > ${limits.maxOutput}, which is the maximum allowed number of output tokens for ${body.model}`);
  }
  if (body.temperature !== undefined && !(body.temperature >= 0 && body.temperature <= 1)) return reject('temperature: range: 0..1');
  const systemTurns: Message[] = body.messages.filter((m: Message) => m.role === 'system');
  for (const [i, m] of systemTurns.entries()) {
    const text = checkTextBlocks(`system message ${i}`, blocksOf(m.content), true);
    if (text) return reject(text);
  }
  // The rules below are those of the user/assistant turns; a system message sits between them.
  const messages: Message[] = body.messages.filter((m: Message) => m.role !== 'system');
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (body.tool_choice !== undefined && !hasTools) return reject('tool_choice may only be specified while providing tools.');

  const system = blocksOf(body.system);
  const problem =
    checkTextBlocks('system', system, true) ??
    checkCacheControl([...(Array.isArray(body.tools) ? body.tools : []), ...system, ...body.messages.flatMap((m: Message) => blocksOf(m.content))]);
  if (problem) return reject(problem);

  if (limits?.thinksByDefault) {
    const problem = checkThinkingModel(body, messages);
    if (problem) return reject(problem);
  }

  let toolBlocks = false;
  for (const [i, m] of messages.entries()) {
    const blocks = blocksOf(m.content);
    const last = i === messages.length - 1;
    if (blocks.length === 0 && !(last && m.role === 'assistant')) {
      return reject(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    const text = checkTextBlocks('messages', blocks, !(last && m.role === 'assistant'));
    if (text) return reject(text);
    if (last && m.role === 'assistant') {
      const final = blocks.at(-1);
      if (final?.type === 'text' && typeof final.text === 'string' && final.text !== final.text.trimEnd()) {
        return reject('messages: final assistant content cannot end with trailing whitespace');
      }
    }
    toolBlocks ||= blocks.some((b) => b.type === 'tool_use' || b.type === 'tool_result');
    const pairing = checkToolResults(messages, i);
    if (pairing) return reject(pairing);
  }
  // Tool blocks in the history need the tool definitions, also when no tool may be called
  // (github.com/zed-industries/zed/pull/62745; github.com/anomalyco/opencode/issues/10259).
  if (toolBlocks && !hasTools) return reject('Requests which include `tool_use` or `tool_result` blocks must define tools.');

  const prompt = messagesPromptTokens(body);
  if (limits && prompt > limits.inputLimit) {
    // github.com/RooCodeInc/Roo-Code/issues/477
    return reject(`prompt is too long: ${prompt} tokens > ${limits.inputLimit} maximum`);
  }
  return undefined;
}

/**
 * Roles: user and assistant; `system` too on the models that take mid-conversation system messages
 * (`midConversationSystem` in limits.ts; platform.claude.com/docs/en/build-with-claude/
 * mid-conversation-system-messages: on the Claude API, no beta header, not on Sonnet 5 or earlier),
 * where Claude Code puts its reminders. Placement ("What's new in Claude Opus 4.8", quoted in
 * github.com/simonw/llm-anthropic/issues/73: "immediately after a user turn ... subject to placement
 * rules"; the rules as docs.rs/harn-vm SystemMessagePlacement sums them up): never first, right after
 * a user turn or an assistant turn ending in server_tool_use (or another system message), and last or
 * followed by an assistant turn.
 */
function checkRoles(messages: Message[], limits: ModelLimits | undefined): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (m?.role === 'user' || m?.role === 'assistant') continue;
    if (m?.role !== 'system' || !limits?.midConversationSystem) return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const before = messages
      .slice(0, i)
      .reverse()
      .find((earlier) => earlier.role !== 'system');
    const after = messages.slice(i + 1).find((later) => later.role !== 'system');
    const serverToolUse = before?.role === 'assistant' && blocksOf(before.content).at(-1)?.type === 'server_tool_use';
    if (before?.role !== 'user' && !serverToolUse) return `messages.${i}: a system message must come right after a user turn`;
    if (after && after.role !== 'assistant') return `messages.${i}: a system message must be the last message or be followed by an assistant turn`;
  }
  return undefined;
}

/**
 * Empty text is refused anywhere; whitespace-only text is refused when no other text block of the
 * message has any (github.com/LibreChat-AI/agents/pull/124, which tested the API directly;
 * github.com/anthropics/claude-code/issues/23440).
 */
function checkTextBlocks(where: string, blocks: Block[], whitespaceMatters: boolean): string | undefined {
  const texts = blocks.filter((b) => b.type === 'text');
  if (texts.some((b) => b.text === '' || typeof b.text !== 'string')) return `${where}: text content blocks must be non-empty`;
  if (whitespaceMatters && texts.some((b) => isBlank(b.text)) && texts.every((b) => isBlank(b.text))) {
    return `${where}: text content blocks must contain non-whitespace text`;
  }
  return undefined;
}

/**
 * The message after an assistant turn with tool_use blocks starts with a tool_result for each
 * (github.com/anthropics/claude-code/issues/2697, /issues/37), and a tool_result answers a tool_use
 * of the message just before it (github.com/anthropics/claude-code/issues/13460).
 */
function checkToolResults(messages: Message[], i: number): string | undefined {
  const blocks = blocksOf(messages[i]!.content);
  const previousUses =
    i > 0 && messages[i - 1]!.role === 'assistant'
      ? blocksOf(messages[i - 1]!.content)
          .filter((b) => b.type === 'tool_use')
          .map((b) => String(b.id))
      : [];
  for (const [k, block] of blocks.entries()) {
    if (block.type === 'tool_result' && !previousUses.includes(String(block.tool_use_id))) {
      return `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  if (messages[i]!.role !== 'assistant') return undefined;
  const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
  if (uses.length === 0) return undefined;
  const next = messages[i + 1];
  const nextBlocks = next?.role === 'user' ? blocksOf(next.content) : [];
  const results = nextBlocks.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id));
  const missing = uses.filter((id) => !results.includes(id));
  if (missing.length > 0) {
    return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  const leading = nextBlocks.findIndex((b) => b.type !== 'tool_result');
  if (leading !== -1 && leading < uses.length) {
    return `messages.${i + 1}: Did not find ${uses.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`;
  }
  return undefined;
}

/**
 * Prompt caching docs (platform.claude.com/docs/en/build-with-claude/prompt-caching): at most 4
 * cache breakpoints, and 1-hour entries before 5-minute ones.
 */
function checkCacheControl(blocks: Block[]): string | undefined {
  const marked = blocks.filter((b) => b.cache_control);
  if (marked.length > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${marked.length}.`;
  const ttls = marked.map((b) => b.cache_control?.ttl ?? '5m');
  const firstShort = ttls.indexOf('5m');
  if (firstShort !== -1 && ttls.slice(firstShort).includes('1h')) {
    return 'cache_control: a ttl="1h" cache_control block must not come after a ttl="5m" cache_control block';
  }
  return undefined;
}

export interface CacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/**
 * The prompt cache as the docs describe it: the prompt is tools, then system, then messages; each
 * block marked with cache_control is a breakpoint whose prefix is written to the cache (if long
 * enough), and a later request reads the longest cached prefix found at a breakpoint or up to 20
 * blocks before it. Entries live 5 minutes (or 1 hour), refreshed on every read.
 */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  bill(body: any, limits: ModelLimits | undefined): CacheUsage {
    const blocks = promptBlocks(body);
    const prefixes: { key: string; tokens: number }[] = [];
    const hash = createHash('sha256').update(String(body.model));
    let total = 0;
    for (const block of blocks) {
      const { cache_control: _, ...content } = block;
      hash.update(JSON.stringify(content));
      total += blockTokens(block);
      prefixes.push({ key: hash.copy().digest('hex'), tokens: total });
    }
    const now = this.now();
    const live = (key: string) => (this.entries.get(key) ?? 0) > now;
    const breakpoints = blocks.flatMap((b, i) => (b.cache_control ? [i] : []));

    let read = 0;
    for (const at of breakpoints) {
      for (let i = at; i >= Math.max(0, at - 20); i--) {
        if (live(prefixes[i]!.key)) {
          read = Math.max(read, prefixes[i]!.tokens);
          this.entries.set(prefixes[i]!.key, now + ttlMs(blocks[at]!));
          break;
        }
      }
    }
    const written = { '5m': 0, '1h': 0 };
    let covered = read;
    for (const at of breakpoints) {
      const prefix = prefixes[at]!;
      if (prefix.tokens < (limits?.minCacheable ?? 1024) || prefix.tokens <= covered) continue;
      written[blocks[at]!.cache_control?.ttl === '1h' ? '1h' : '5m'] += prefix.tokens - covered;
      covered = prefix.tokens;
      this.entries.set(prefix.key, now + ttlMs(blocks[at]!));
    }
    const creation = written['5m'] + written['1h'];
    return {
      input_tokens: total - read - creation,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
      cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
    };
  }
}

const ttlMs = (block: Block) => (block.cache_control?.ttl === '1h' ? 3_600_000 : 300_000);

/** What the fake signs its thinking blocks with: a block changed or made up does not check out. */
const SIGNING_KEY = 'coop-bench fake thinking';

export function thinkingSignature(thinking: string, nonce: string): string {
  return `${nonce}.${createHash('sha256').update(`${SIGNING_KEY}\u0000${nonce}\u0000${thinking}`).digest('base64')}`;
}

function signedByUs(block: { thinking?: unknown; signature?: unknown }): boolean {
  if (typeof block.thinking !== 'string' || typeof block.signature !== 'string') return false;
  const nonce = block.signature.split('.')[0]!;
  return block.signature === thinkingSignature(block.thinking, nonce);
}

/**
 * A model that thinks by default (Sonnet 5.5): sampling parameters, forced tool choice and
 * `thinking: {type: "disabled"}` are 400s (models/sonnet-5-5/migration-guide, "Send a request");
 * the assistant message whose tool calls the last user turn answers must start with its thinking
 * blocks, complete and unmodified (build-with-claude/thinking-tool-workflows: "Pass thinking blocks
 * back complete and unmodified"; the error text as users report it, e.g.
 * dev.to/ji_ai/return-claudes-thinking-blocks-or-your-agent-breaks-2lpm).
 */
function checkThinkingModel(body: any, messages: Message[]): string | undefined {
  for (const name of ['temperature', 'top_p', 'top_k']) {
    if (body[name] !== undefined) return `${name}: sampling parameters are not supported with ${body.model}; use output_config.effort instead`;
  }
  const choice = body.tool_choice?.type;
  if (choice === 'any' || choice === 'tool') return `tool_choice: forcing tool use is not supported with ${body.model}`;
  if (body.thinking?.type === 'disabled') return `thinking.type: "disabled" is not supported with ${body.model}; use "between_tools"`;
  const last = messages.length - 1;
  const answersTools = last > 0 && blocksOf(messages[last]!.content).some((b) => b.type === 'tool_result');
  if (!answersTools || messages[last - 1]!.role !== 'assistant') return undefined;
  const blocks = blocksOf(messages[last - 1]!.content) as (Block & { thinking?: unknown; signature?: unknown })[];
  const first = blocks[0];
  if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
    return `messages.${last - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
  }
  const changed = blocks.findIndex((b) => b.type === 'thinking' && !signedByUs(b));
  if (changed >= 0) return `messages.${last - 1}.content.${changed}: Invalid \`signature\` in \`thinking\` block`;
  return undefined;
}
