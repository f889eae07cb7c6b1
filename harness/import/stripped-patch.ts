// The reference adapters read an agent's patch with `.strip()` (mini_swe_agent_v2/adapter.py
// `_get_patch`, claude_code/adapter.py `patch.txt`), which also cuts trailing context lines of
// blank lines (" "): the last hunk then holds fewer lines than its header counts and `git apply`
// rejects the whole patch as corrupt. Such a failure is the harness's doing, not the agent's.

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * How many blank context lines the last hunk lacks, when that is all that is wrong with it (the
 * header's old and new counts both exceed the body's by the same number); 0 otherwise.
 */
export function strippedBlankLines(patch: string): number {
  if (patch.endsWith('\n')) return 0;
  const lines = patch.split('\n');
  let header = -1;
  for (let i = lines.length - 1; i >= 0; i--)
    if (HUNK.test(lines[i]!)) {
      header = i;
      break;
    }
  if (header < 0) return 0;
  const m = HUNK.exec(lines[header]!)!;
  const [oldCount, newCount] = [Number(m[1] ?? 1), Number(m[2] ?? 1)];
  let oldSeen = 0;
  let newSeen = 0;
  for (const line of lines.slice(header + 1)) {
    if (line.startsWith('\\')) continue;
    if (line.startsWith('-')) oldSeen++;
    else if (line.startsWith('+')) newSeen++;
    else if (line.startsWith(' ') || line === '') {
      oldSeen++;
      newSeen++;
    } else return 0;
  }
  const missing = oldCount - oldSeen;
  return missing > 0 && missing === newCount - newSeen ? missing : 0;
}

/** The patch as the agent left it: the cut blank context lines and the final newline put back. */
export function repairStrippedPatch(patch: string): string {
  const missing = strippedBlankLines(patch);
  return missing === 0 ? patch : `${patch}\n${' \n'.repeat(missing)}`;
}
