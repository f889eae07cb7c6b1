// A patch cut by the reference adapters' .strip(): found, and put back so that git applies it.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repairStrippedPatch, strippedBlankLines } from '../../../../harness/import/stripped-patch.ts';

const FILE = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n';
// git diff's own output for adding a line after `return 1`: its hunk ends in two blank context lines.
const PATCH = ['diff --git a/m.py b/m.py', '--- a/m.py', '+++ b/m.py', '@@ -1,4 +1,5 @@', ' def a():', '     return 1', '+    # one', ' ', ' ', ''].join('\n');

function gitApplies(patch: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'coop-bench-strip-'));
  try {
    execFileSync('git', ['init', '-q', dir]);
    writeFileSync(join(dir, 'm.py'), FILE);
    writeFileSync(join(dir, 'p.diff'), patch);
    execFileSync('git', ['apply', '--check', 'p.diff'], { cwd: dir, stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("a patch cut by the adapters' .strip()", () => {
  it('is found, and its repair is the patch git diff wrote', () => {
    const stripped = PATCH.trim();
    expect(gitApplies(PATCH)).toBe(true);
    expect(gitApplies(stripped)).toBe(false);
    expect(strippedBlankLines(stripped)).toBe(2);
    expect(repairStrippedPatch(stripped)).toBe(PATCH);
    expect(gitApplies(repairStrippedPatch(stripped))).toBe(true);
  });

  it('leaves whole patches and other damage alone', () => {
    expect(strippedBlankLines(PATCH)).toBe(0);
    expect(strippedBlankLines('')).toBe(0);
    expect(strippedBlankLines(PATCH.replace('@@ -1,4 +1,5 @@', '@@ -1,9 +1,5 @@').trim())).toBe(0);
  });
});
