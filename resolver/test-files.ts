// Agents cannot edit the hidden tests: test files are dropped from their patches before merging
// (design.md "Merge" 1, as CooperBench does).
import { splitPatch } from './patch-sections.ts';

const TEST_PATH_PARTS = ['/test_', '/tests/', '_test.py', '/test/', 'tests.py'];

/** True for test files: the CooperBench substrings, `*.test.*`/`*.spec.*`, Go's `_test.go`. */
export function isTestPath(path: string): boolean {
  const rooted = `/${path}`; // so `tests/x.py` and `test_x.py` match like `a/tests/x.py`
  if (TEST_PATH_PARTS.some((part) => rooted.includes(part))) return true;
  const base = path.slice(path.lastIndexOf('/') + 1);
  return /\.(test|spec)\./.test(base) || base.endsWith('_test.go');
}

export interface FilteredPatch {
  patch: string;
  /** Paths of the dropped sections. */
  dropped: string[];
}

/** Removes every file section that touches a test path; the rest of the patch is kept byte for byte. */
export function dropTestFiles(patch: string): FilteredPatch {
  const { preamble, sections } = splitPatch(patch);
  const kept = sections.filter((section) => !section.paths.some(isTestPath));
  if (kept.length === sections.length) return { patch, dropped: [] };
  const dropped = sections.filter((section) => !kept.includes(section)).flatMap((section) => section.paths);
  return {
    patch: kept.length === 0 ? '' : preamble + kept.map((section) => section.text).join(''),
    dropped: [...new Set(dropped)],
  };
}
