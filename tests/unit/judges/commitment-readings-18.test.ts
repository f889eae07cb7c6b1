// Readings of detectors-18: a sentence that names the function its placement is in is not about a
// function an earlier sentence of the message named.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../judges/detectors/language.ts';
import { targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('readings: the function a placement is in', () => {
  it('takes the function the sentence names, not the one named before it', () => {
    const placed = { kind: 'placement', names: [], files: [], scope: 'get', position: 'first' };
    const alone = "The check itself goes in `get()`: it'll be the very first thing get does, ahead of the dict lookup.";
    expect(targets(['agent1', alone])).toEqual([placed]);
    const afterList = `- \`Cache\` gets a new \`bypass()\` context manager, I'll put it below \`clear()\`\n- ${alone}`;
    expect(targets(['agent1', afterList]).filter((t) => t.kind === 'placement')).toEqual([placed]);
  });
});
