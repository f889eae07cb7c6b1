import { describe, expect, it } from 'vitest';
import { UserError } from '../../../../harness/errors.ts';
import { isModelSpec, MODEL_ALIASES, parseModelSpec } from '../../../../harness/models/index.ts';
import { parseAgentSpec } from '../../../../harness/agents/registry.ts';

describe('parseModelSpec', () => {
  it("maps gpt-5 to the paper's model and claude to the current Sonnet", () => {
    expect(MODEL_ALIASES).toEqual({
      'gpt-5': { provider: 'openai', model: 'gpt-5' },
      claude: { provider: 'anthropic', model: 'claude-sonnet-5-5' },
    });
    expect(parseModelSpec('gpt-5')).toEqual({ spec: 'gpt-5', provider: 'openai', model: 'gpt-5' });
    expect(parseModelSpec('claude')).toEqual({ spec: 'claude', provider: 'anthropic', model: 'claude-sonnet-5-5' });
  });

  it('reads provider:model and provider:model@base-url, model ids with colons included', () => {
    expect(parseModelSpec('openai:gpt-4.1-mini')).toEqual({ spec: 'openai:gpt-4.1-mini', provider: 'openai', model: 'gpt-4.1-mini' });
    expect(parseModelSpec('anthropic:claude-haiku-4-5')).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(parseModelSpec('openai:qwen2.5-coder:7b@http://localhost:11434/v1')).toMatchObject({
      provider: 'openai',
      model: 'qwen2.5-coder:7b',
      baseURL: 'http://localhost:11434/v1',
    });
  });

  it('rejects unknown specs with one line that lists the accepted forms', () => {
    for (const spec of ['gpt5', 'google:gemini', 'openai:', 'anthropic', '']) {
      const error = catchError(() => parseModelSpec(spec));
      expect(error).toBeInstanceOf(UserError);
      expect(error.message).toBe(
        `unknown model "${spec}": use gpt-5, claude, openai:<model>, anthropic:<model>, openai:<model>@<base-url>, anthropic:<model>@<base-url>`,
      );
    }
  });

  it('names the agents beside the models when an agent spec has no form', () => {
    const error = catchError(() => parseAgentSpec('gpt5'));
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe(
      'unknown model "gpt5": use gpt-5, claude, openai:<model>, anthropic:<model>, openai:<model>@<base-url>, anthropic:<model>@<base-url>, oracle, noop, claude-code[:<model>], codex[:<model>]',
    );
    expect(['oracle', 'codex', 'claude'].map((spec) => parseAgentSpec(spec).kind)).toEqual(['builtin', 'cli', 'loop']);
  });

  it('rejects a base URL without a scheme, saying how to write it', () => {
    const error = catchError(() => parseModelSpec('openai:qwen@localhost:8000/v1'));
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toMatch(
      /^bad model spec "openai:qwen@localhost:8000\/v1": write openai:<model>@<base-url> with a URL that starts with http:\/\/ or https:\/\//,
    );
    expect(error.message).not.toContain('\n');
  });
});

describe('isModelSpec', () => {
  it('is true for LLM specs and false for agent specs and typos', () => {
    expect(['gpt-5', 'claude', 'openai:o3', 'openai:m@https://example.com/v1'].map(isModelSpec)).toEqual([true, true, true, true]);
    expect(['oracle', 'noop', 'gpt5', 'openai:m@example.com'].map(isModelSpec)).toEqual([false, false, false, false]);
  });
});

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
