// The key scrubbed from what the model proxy relays and records.
import { describe, expect, it } from 'vitest';
import { StreamScrubber, scrubSecrets } from '../../../../../harness/agents/cli/secrets.ts';

const KEY = 'sk-ant-secret-0123456789';

describe('scrubSecrets', () => {
  it('replaces the key and the values of credential headers an error text quotes', () => {
    expect(scrubSecrets(`bad key ${KEY}; headers {"x-api-key": "other-1", "Authorization": "Bearer other-2"}`, KEY)).toBe(
      'bad key [key]; headers {"x-api-key": "[key]", "Authorization": "Bearer [key]"}',
    );
    expect(scrubSecrets('api-key=abc authorization: Basic xyz', KEY)).toBe('api-key=[key] authorization: Basic [key]');
    expect(scrubSecrets('check ANTHROPIC_API_KEY; x-api-key header is required', KEY)).toBe('check ANTHROPIC_API_KEY; x-api-key header is required');
  });
});

describe('StreamScrubber', () => {
  it('catches the key split across pieces of any size, and holds back only what could start it', () => {
    const text = `a${KEY}b ss${KEY}${KEY} s`;
    for (const size of [1, 2, 5, 13, text.length]) {
      const scrubber = new StreamScrubber(KEY);
      let out = '';
      for (let i = 0; i < text.length; i += size) out += scrubber.push(text.slice(i, i + size));
      out += scrubber.end();
      expect(out, `pieces of ${size}`).toBe('a[key]b ss[key][key] s');
    }
    const scrubber = new StreamScrubber(KEY);
    expect(scrubber.push('data: {"x":1}\n\n')).toBe('data: {"x":1}\n\n');
    expect(scrubber.push('tail sk-an')).toBe('tail ');
    expect(scrubber.push('d more')).toBe('sk-and more');
  });
});
