import { beforeAll, describe, expect, it } from 'vitest';
import { filePathMentions, lineNumberMentions } from '../../../../judges/detectors/mentions.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('line-number and file-path mentions', () => {
  it('counts each reference once, ranges and lists included', () => {
    const text = 'I will modify src/jinja2/filters.py lines 1161–1230 and L20-L25, see filters.py:120, https://x.org/a/b.py, Node.js, lines 10, 12 and 14.';
    expect(lineNumberMentions(text)).toEqual(['lines 1161–1230', 'L20-L25', ':120', 'lines 10, 12 and 14']);
    expect(filePathMentions(text)).toEqual(['src/jinja2/filters.py', 'filters.py']);
    expect(filePathMentions('then call response.json() on it')).toEqual([]);
    expect(lineNumberMentions('everything between line 28 and line 38 of ring.go; also line 50')).toEqual(['line 28 and line 38', 'line 50']);
  });
});
