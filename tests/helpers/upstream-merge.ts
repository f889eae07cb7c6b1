// CooperBench's merge procedure (cooperbench/CooperBench, src/cooperbench/eval/sandbox.py:
// _setup_branches, _merge_naive, _merge_union) transcribed as the git commands it runs, in a
// throw-away copy of a base repository, with real git and no configuration but the repository's
// own (as in its fresh container). The reference the merge's byte-identity test compares against.
import { execa } from 'execa';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface UpstreamMerge {
  /** clean: the naive merge; union: the union merge; conflict: both failed. */
  status: 'clean' | 'union' | 'conflict';
  /** The merged commit's tree (clean, union). */
  tree?: string;
  /** `git diff <base> HEAD` of the merged commit: the patch upstream tests. */
  diff?: string;
}

// Step by step, as upstream runs them: each agent's branch from the base with its patch applied
// (`git apply`, then `--3way`) and committed with `git add -A`; then `git checkout agent2` and
// `git merge agent1 --no-commit --no-ff`; on conflict abort, reset, append `* merge=union` to the
// work tree's .gitattributes and merge again. The merged code is `git diff <base> HEAD` of the
// merge committed (the .gitattributes line, never staged, is not in it).
const PROCEDURE = String.raw`
set -u
P="$1"
git config user.email "eval@cooperbench.local"
git config user.name "CooperBench Eval"
BASE_SHA=$(git rev-parse HEAD)
apply_patch() {
  if [ -s "$P/patch$1.patch" ]; then
    git apply "$P/patch$1.patch" >/dev/null 2>&1 || git apply --3way "$P/patch$1.patch" >/dev/null 2>&1 || echo "PATCH$1_FAILED"
  fi
}
git checkout -q -b agent1
apply_patch 1
git add -A
git commit -q -m "Agent 1 changes" --allow-empty
git checkout -q "$BASE_SHA"
git checkout -q -b agent2
apply_patch 2
git add -A
git commit -q -m "Agent 2 changes" --allow-empty
git checkout -q agent2
if git merge agent1 --no-commit --no-ff >/dev/null 2>&1; then
  git commit -q -m "Temp merge"
  git diff "$BASE_SHA" HEAD > "$P/merged.patch"
  echo "STATUS=clean"
  exit 0
fi
git merge --abort >/dev/null 2>&1 || true
git checkout -q agent2
git reset -q --hard HEAD
echo "* merge=union" >> .gitattributes
if git merge agent1 --no-commit --no-ff >/dev/null 2>&1; then
  git commit -q -m "Temp union merge"
  git diff "$BASE_SHA" HEAD > "$P/merged.patch"
  echo "STATUS=union"
else
  echo "STATUS=conflict"
fi
`;

/** Runs the procedure on a copy of `repoDir` (HEAD = base) with patch 1 and patch 2. */
export async function upstreamMerge(repoDir: string, patch1: string, patch2: string): Promise<UpstreamMerge> {
  const work = await mkdtemp(path.join(tmpdir(), 'upstream-merge-'));
  try {
    const repo = path.join(work, 'repo');
    const patches = path.join(work, 'patches');
    const home = path.join(work, 'home');
    await cp(repoDir, repo, { recursive: true });
    await Promise.all([mkdir(patches), mkdir(home)]);
    await writeFile(path.join(patches, 'patch1.patch'), patch1);
    await writeFile(path.join(patches, 'patch2.patch'), patch2);
    const env = { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1', PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' };
    const run = await execa('bash', ['-c', PROCEDURE, 'upstream', patches], { cwd: repo, env, extendEnv: false, reject: false });
    const status = /STATUS=(clean|union|conflict)/.exec(run.stdout)?.[1] as UpstreamMerge['status'] | undefined;
    if (!status) throw new Error(`the upstream procedure did not finish: ${run.stdout}\n${run.stderr}`);
    if (status === 'conflict') return { status };
    const tree = (await execa('git', ['rev-parse', 'HEAD^{tree}'], { cwd: repo, env, extendEnv: false })).stdout.trim();
    return { status, tree, diff: await readFile(path.join(patches, 'merged.patch'), 'utf8') };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
