// The CLIs' JSON event streams (shapes as Claude Code 2.1.330 and Codex 0.169.0 print them) into
// the harness's trajectory, and token counts read from answers as they stream by.
import { describe, expect, it } from 'vitest';
import { Trajectory } from '../../../../../harness/agents/trajectory.ts';
import { claudeCode } from '../../../../../harness/agents/cli/claude-code.ts';
import { codex } from '../../../../../harness/agents/cli/codex.ts';
import { TokenCounter } from '../../../../../harness/agents/cli/usage.ts';

function read(cli: typeof claudeCode, events: unknown[]) {
  const trajectory = new Trajectory();
  const reader = cli.reader(trajectory);
  for (const event of events) reader.line(event);
  return { steps: trajectory.steps.map(({ kind, name, input, output, exitCode }) => ({ kind, name, input, output, exitCode })), ending: reader.ending() };
}

describe('Claude Code stream-json', () => {
  it('model turns with their tool calls, each tool result as a tool step, and the final result', () => {
    const { steps, ending } = read(claudeCode, [
      {
        type: 'system',
        subtype: 'init',
        claude_code_version: '2.1.330',
        model: 'claude-sonnet-4-5',
        mcp_servers: [{ name: 'coop-bench', status: 'connected' }],
      },
      {
        type: 'assistant',
        message: {
          id: 'msg_1',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
          ],
        },
      },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'src\ntest' }] } },
      {
        type: 'assistant',
        message: { id: 'msg_2', content: [{ type: 'tool_use', id: 'toolu_2', name: 'mcp__coop-bench__send_message', input: { to: 'agent2', message: 'hi' } }] },
      },
      {
        type: 'user',
        message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'not sent: unknown' }], is_error: true }] },
      },
      { type: 'result', subtype: 'success', is_error: false, result: 'Done.' },
    ]);
    expect(steps).toEqual([
      { kind: 'note', name: 'start', output: 'Claude Code 2.1.330, model claude-sonnet-4-5; MCP servers: coop-bench connected' },
      { kind: 'model', output: 'Let me look.', input: [{ id: 'toolu_1', name: 'Bash', arguments: '{"command":"ls"}' }] },
      { kind: 'tool', name: 'Bash', input: { command: 'ls' }, output: 'src\ntest', exitCode: 0 },
      { kind: 'model', output: '', input: [{ id: 'toolu_2', name: 'mcp__coop-bench__send_message', arguments: '{"to":"agent2","message":"hi"}' }] },
      { kind: 'tool', name: 'mcp__coop-bench__send_message', input: { to: 'agent2', message: 'hi' }, output: 'not sent: unknown', exitCode: 1 },
    ]);
    expect(ending).toEqual({ status: 'finished' });
  });

  it('the turn limit and errors', () => {
    expect(read(claudeCode, [{ type: 'result', subtype: 'error_max_turns', is_error: true }]).ending?.status).toBe('step_limit');
    expect(read(claudeCode, [{ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'API Error: 500' }]).ending).toEqual({
      status: 'error',
      error: 'Claude Code: error_during_execution: API Error: 500',
    });
    expect(read(claudeCode, [{ type: 'assistant', message: null }, { type: 'user' }, 'junk', null]).steps).toEqual([]);
  });
});

describe('codex exec --json', () => {
  it('commands, file changes, MCP calls and messages as steps; turn.completed ends it', () => {
    const { steps, ending } = read(codex, [
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.started' },
      { type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: 'Plan.' } },
      {
        type: 'item.completed',
        item: { id: 'item_1', type: 'command_execution', command: "/bin/bash -lc 'ls'", aggregated_output: 'src\n', exit_code: 0, status: 'completed' },
      },
      { type: 'item.completed', item: { id: 'item_2', type: 'file_change', changes: [{ path: '/workspace/repo/a.js', kind: 'update' }], status: 'completed' } },
      {
        type: 'item.completed',
        item: {
          id: 'item_3',
          type: 'mcp_tool_call',
          server: 'coop-bench',
          tool: 'read_messages',
          arguments: {},
          result: { content: [{ type: 'text', text: 'No new messages.' }] },
          status: 'completed',
        },
      },
      { type: 'item.completed', item: { id: 'item_4', type: 'agent_message', text: 'Done.' } },
      { type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 2 } },
    ]);
    expect(steps).toEqual([
      { kind: 'model', name: 'reasoning', output: 'Plan.' },
      { kind: 'tool', name: 'exec_command', input: "/bin/bash -lc 'ls'", output: 'src\n', exitCode: 0 },
      { kind: 'tool', name: 'apply_patch', input: [{ path: '/workspace/repo/a.js', kind: 'update' }], output: 'completed', exitCode: 0 },
      { kind: 'tool', name: 'mcp__coop-bench__read_messages', input: {}, output: 'No new messages.', exitCode: 0 },
      { kind: 'model', output: 'Done.' },
    ]);
    expect(ending).toEqual({ status: 'finished' });
  });

  it("a failed turn is the agent's error", () => {
    expect(read(codex, [{ type: 'turn.failed', error: { message: 'stream disconnected' } }]).ending).toEqual({
      status: 'error',
      error: 'Codex: stream disconnected',
    });
  });
});

const NONE = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0 };

describe('token counts of a streamed answer', () => {
  const anthropicStream = [
    'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":100,"cache_read_input_tokens":50,"cache_creation_input_tokens":10,"output_tokens":1}}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join('');

  it('Anthropic: input with cache reads and writes from message_start, output from the last message_delta, in chunks of any size', () => {
    for (const size of [1, 7, 64, anthropicStream.length]) {
      const counter = new TokenCounter('anthropic', true);
      for (let i = 0; i < anthropicStream.length; i += size) counter.push(anthropicStream.slice(i, i + size));
      expect(counter.end(), `chunks of ${size}`).toEqual({ ...NONE, inputTokens: 160, cachedInputTokens: 50, cacheWriteTokens: 10, outputTokens: 42 });
    }
  });

  it('OpenAI Responses: usage of response.completed, CRLF or not; a JSON answer too', () => {
    const counter = new TokenCounter('openai', true);
    counter.push('event: response.created\r\ndata: {"type":"response.created","response":{"usage":null}}\r\n\r\n');
    counter.push(
      'data: {"type":"response.completed","response":{"usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":300},"output_tokens":12}}}\n\n',
    );
    expect(counter.end()).toEqual({ ...NONE, inputTokens: 900, cachedInputTokens: 300, outputTokens: 12 });
    const json = new TokenCounter('openai', false);
    json.push('{"usage":{"input_tokens":5,"output_tokens":6}}');
    expect(json.end()).toEqual({ ...NONE, inputTokens: 5, outputTokens: 6 });
  });

  it('counts nothing from what is not an answer', () => {
    const counter = new TokenCounter('anthropic', true);
    counter.push('data: not json\n\n: comment\n\n');
    expect(counter.end()).toEqual(NONE);
    expect(counter.failure).toBeUndefined();
  });

  it('Anthropic: cache writes by lifetime from usage.cache_creation', () => {
    const counter = new TokenCounter('anthropic', true);
    counter.push(
      'data: {"type":"message_start","message":{"usage":{"input_tokens":50,"cache_read_input_tokens":40000,"cache_creation_input_tokens":5000,"cache_creation":{"ephemeral_5m_input_tokens":3000,"ephemeral_1h_input_tokens":2000},"output_tokens":1}}}\n\n',
    );
    expect(counter.end()).toEqual({
      ...NONE,
      inputTokens: 45_050,
      cachedInputTokens: 40_000,
      cacheWriteTokens: 3000,
      cacheWrite1hTokens: 2000,
      outputTokens: 1,
    });
  });
});

describe('errors inside a 200 stream', () => {
  const failureOf = (provider: 'anthropic' | 'openai', stream: string) => {
    const counter = new TokenCounter(provider, true);
    counter.push(stream);
    counter.end();
    return counter.failure;
  };

  it("Anthropic's error event stands for its HTTP status (overloaded_error: 529)", () => {
    const start = 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}\n\n';
    const error = (type: string) => `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"Overloaded"}}\n\n`;
    expect(failureOf('anthropic', start + error('overloaded_error'))).toEqual({ status: 529, message: 'overloaded_error: Overloaded' });
    expect(failureOf('anthropic', error('api_error'))?.status).toBe(500);
    expect(failureOf('anthropic', error('constructor'))?.status).toBe(500);
  });

  it("OpenAI's response.failed and error events: server errors 500, rate limits 429, the rest the request's", () => {
    const failed = (code: string) =>
      `data: {"type":"response.failed","response":{"status":"failed","error":{"code":"${code}","message":"boom"},"usage":null}}\n\n`;
    expect(failureOf('openai', failed('server_error'))).toEqual({ status: 500, message: 'response.failed: server_error: boom' });
    expect(failureOf('openai', failed('rate_limit_exceeded'))?.status).toBe(429);
    expect(failureOf('openai', failed('invalid_prompt'))?.status).toBe(400);
    expect(failureOf('openai', 'event: error\ndata: {"type":"error","code":null,"message":"try again","param":null}\n\n')).toEqual({
      status: 500,
      message: 'error event: try again',
    });
  });
});

describe('answers in which the model declined', () => {
  const declined = (provider: 'anthropic' | 'openai', answer: string, streaming = true) => {
    const counter = new TokenCounter(provider, streaming);
    counter.push(answer);
    counter.end();
    return counter.declined;
  };

  it("Anthropic's refusal stop reason, streamed or whole; other stop reasons are no refusal", () => {
    const delta = (reason: string) =>
      `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"${reason}"},"usage":{"output_tokens":3}}\n\n`;
    expect(declined('anthropic', delta('refusal'))).toBe(true);
    expect(declined('anthropic', delta('end_turn'))).toBe(false);
    expect(declined('anthropic', '{"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":1}}', false)).toBe(true);
  });

  it("OpenAI's content filter and refusal parts, streamed or whole", () => {
    const incomplete = 'data: {"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"},"usage":null}}\n\n';
    expect(declined('openai', incomplete)).toBe(true);
    const refusal = '{"output":[{"type":"message","content":[{"type":"refusal","refusal":"I can\'t help with that."}]}],"usage":null}';
    expect(declined('openai', refusal, false)).toBe(true);
    const tooLong = 'data: {"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"usage":null}}\n\n';
    expect(declined('openai', tooLong)).toBe(false);
  });
});
