import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../../harness/errors.ts';
import { checkModelSpecs, createModel } from '../../../../harness/models/index.ts';
import { ANTHROPIC_TEST_KEY, cleanupDirs, OPENAI_TEST_KEY, tempDir } from './helpers.ts';

afterEach(cleanupDirs);

const quiet = { warn: () => {} };

function checkError(specs: string[], options: Parameters<typeof checkModelSpecs>[1]): UserError {
  try {
    checkModelSpecs(specs, options);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).not.toContain('\n');
    return error as UserError;
  }
  throw new Error('expected checkModelSpecs to throw');
}

describe('checkModelSpecs', () => {
  it('accepts specs whose keys are in the environment', async () => {
    const cwd = await tempDir();
    expect(() =>
      checkModelSpecs(['gpt-5', 'claude', 'openai:gpt-4o'], { env: { OPENAI_API_KEY: OPENAI_TEST_KEY, ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY }, cwd }),
    ).not.toThrow();
  });

  it('names the missing variable and says that ./.env works too', async () => {
    const cwd = await tempDir();
    expect(checkError(['gpt-5'], { env: {}, cwd }).message).toBe('no API key for model "gpt-5": set OPENAI_API_KEY in the environment or in ./.env');
    expect(checkError(['claude'], { env: { OPENAI_API_KEY: OPENAI_TEST_KEY }, cwd }).message).toBe(
      'no API key for model "claude": set ANTHROPIC_API_KEY in the environment or in ./.env',
    );
    expect(checkError(['anthropic:claude-haiku-4-5'], { env: { ANTHROPIC_API_KEY: '' }, cwd }).message).toContain('ANTHROPIC_API_KEY');
  });

  it('reports the first unknown spec with the accepted forms', async () => {
    const cwd = await tempDir();
    expect(checkError(['gpt-5', 'gpt-6'], { env: { OPENAI_API_KEY: OPENAI_TEST_KEY }, cwd }).message).toMatch(
      /^unknown model "gpt-6": use gpt-5, claude, openai:<model>/,
    );
  });

  it('needs no key for a server named in the spec', async () => {
    const cwd = await tempDir();
    expect(() => checkModelSpecs(['openai:qwen2.5-coder@http://127.0.0.1:8000/v1'], { env: {}, cwd, ...quiet })).not.toThrow();
  });

  it('reads keys from ./.env without putting them into process.env', async () => {
    const cwd = await tempDir({ '.env': `# keys\nOPENAI_API_KEY="${OPENAI_TEST_KEY}"\nexport ANTHROPIC_API_KEY=${ANTHROPIC_TEST_KEY}\n` });
    const before = { ...process.env };
    const model = createModel('openai:gpt-5', { env: {}, cwd });
    checkModelSpecs(['gpt-5', 'claude'], { env: {}, cwd });
    expect(model.id).toBe('gpt-5');
    expect(process.env).toEqual(before);
    expect(JSON.stringify(process.env)).not.toContain(OPENAI_TEST_KEY);
  });

  it('rejects an OPENAI_BASE_URL that is not a URL', async () => {
    const cwd = await tempDir({ '.env': 'OPENAI_BASE_URL=localhost:8000\n' });
    expect(checkError(['gpt-5'], { env: { OPENAI_API_KEY: OPENAI_TEST_KEY }, cwd }).message).toBe(
      'OPENAI_BASE_URL is not an http(s) URL ("localhost:8000"): fix it in the environment or in ./.env',
    );
  });

  it('says so when ./.env cannot be read', async () => {
    const cwd = await tempDir();
    await mkdir(path.join(cwd, '.env'));
    expect(checkError(['gpt-5'], { env: {}, cwd }).message).toMatch(/^cannot read .*\.env \(EISDIR\)/);
  });

  it('reports a bad price file before the run starts', async () => {
    const cwd = await tempDir({ 'prices.json': '{"gpt-5": {"inputPerMillion": "cheap"}}' });
    const error = checkError(['gpt-5'], { env: { OPENAI_API_KEY: OPENAI_TEST_KEY, COOP_BENCH_PRICES: 'prices.json' }, cwd });
    expect(error.message).toMatch(/^bad price file .*prices\.json: at gpt-5\.inputPerMillion: /);
  });
});
