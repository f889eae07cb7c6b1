// `coop-bench import` through the command line, as a researcher uses it: CooperBench logs give a
// report with CooperBench's own numbers, and a real oracle run's log tree (Docker) imports to the
// same report numbers as its run.db.
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/paths.ts';
import { coopBench, tempDir } from '../helpers/cli.ts';
import { queryRun, uniqueRun } from '../helpers/run-db.ts';

const FIXTURES = join(PROJECT_ROOT, 'tests/fixtures/cooperbench-logs');
const runsDir = tempDir('import');
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

async function reportJson(run: string) {
  const out = join(runsDir, `${run}.json`);
  const result = await coopBench(['report', run, '--runs-dir', runsDir, '--format', 'json', '--out', out]);
  expect(result.exitCode, result.all).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as {
    summary: Summary;
    tasks: { key: string; status: string; passed: boolean | null; mergeStatus: string | null; naiveClean: boolean | null; steps: number; messages: number }[];
  };
}

interface Rate {
  condition: string;
  tasks: number;
  done: number;
  passed: number;
}
interface Summary {
  taskCounts: Record<string, number>;
  headline: { teams: { team: string; results: Rate[] }[] };
  merges: unknown;
  difficulty: unknown;
  cost: unknown;
  communication: unknown;
}

describe('import of CooperBench logs, then report', () => {
  it('gives each run the pass rate CooperBench computed for it (eval_summary.json)', async () => {
    for (const [run, condition] of [
      ['gpt5-coop', 'Coop'],
      ['gpt5-solo', 'Solo'],
    ] as const) {
      const imported = await coopBench(['import', join(FIXTURES, run), '--name', run, '--runs-dir', runsDir]);
      expect(imported.exitCode, imported.all).toBe(0);
      const own = JSON.parse(readFileSync(join(FIXTURES, run, 'eval_summary.json'), 'utf8')) as {
        passed: number;
        failed: number;
        errors: number;
        pass_rate: number;
      };
      const { summary } = await reportJson(run);
      const rate = summary.headline.teams.find((t) => t.team === 'gpt-5')!.results.find((r) => r.condition === condition)!;
      expect({ passed: rate.passed, evaluated: rate.done }).toEqual({ passed: own.passed, evaluated: own.passed + own.failed });
      expect(rate.passed / rate.done).toBeCloseTo(own.pass_rate, 10);
      // CooperBench's evaluation errors (and tasks it never evaluated) are unfinished tasks here, not failures.
      expect(summary.taskCounts.error).toBeGreaterThanOrEqual(own.errors);
    }
  });

  it('says per task what the logs lack, and compares the imported runs', async () => {
    const imported = await coopBench(['import', FIXTURES, '--name', 'both', '--runs-dir', runsDir]);
    expect(imported.stdout).toMatch(/^interrupted +gpt5-coop\/coop\/go_chi_task\/26\/f1_f3: not evaluated: no eval\.json/m);
    expect(imported.stdout).toMatch(/^done +gpt5-coop\/coop\/dspy_task\/8394\/f2_f3: no conversation\.json/m);
    expect(imported.stdout).toContain('9 task folders of gpt5-coop, gpt5-solo');
    const judged = await coopBench(['judge', '--name', 'both', '--runs-dir', runsDir]);
    expect(judged.exitCode, judged.all).toBe(0);
    expect(judged.stdout).toContain('Judged 4 tasks');
    const compared = await coopBench(['report', '--compare', 'gpt5-solo,gpt5-coop', '--runs-dir', runsDir, '--format', 'json']);
    expect(compared.exitCode, compared.all).toBe(0);
  });

  it('refuses an unknown folder with one line saying what to give', async () => {
    const result = await coopBench(['import', join(runsDir, 'nope'), '--name', 'x', '--runs-dir', runsDir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^coop-bench: cannot read the logs folder .*give CooperBench's logs\/ folder/);
  });
});

const ADAPTERS = join(FIXTURES, 'adapters');
const MINI_TASK = 'mini-coop/coop/dspy_task/8394/f1_f2';

/** A task's rows by its folder's features and repository. */
function rows<T>(run: string, sql: string, repo: string, features: string): T[] {
  return queryRun<T>(runsDir, run, sql.replace('$TASK', `(SELECT id FROM tasks WHERE repo = '${repo}' AND features = '${features}')`));
}

describe("import of each CooperBench adapter's logs", () => {
  it('keeps tokens, test counts, apply_status, steps, commands, limits and the framework in run.db and the report', async () => {
    const imported = await coopBench(['import', ADAPTERS, '--name', 'adapters', '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    const out = imported.stdout;

    // Tokens: Claude Code's per-agent totals (its input leaves the cache out; coop-bench's input counts it) ...
    const claudeCalls = rows<Record<string, number | string>>(
      'adapters',
      'SELECT agent, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd FROM model_calls WHERE task = $TASK ORDER BY agent, idx',
      'go_chi_task',
      '[1,2]',
    );
    expect(claudeCalls[0]).toEqual({
      agent: 'agent1',
      input_tokens: 110 + 246_400 + 12_210,
      output_tokens: 809,
      cache_read_tokens: 246_400,
      cache_write_tokens: 12_210,
      cost_usd: 0.4312,
    });
    // ... and mini-swe-agent's per call (extra.cost, extra.response.usage, extra.timestamp).
    const miniCalls = rows<Record<string, number | string>>(
      'adapters',
      "SELECT at, input_tokens, output_tokens, cache_read_tokens, cost_usd FROM model_calls WHERE task = $TASK AND agent = 'agent1' ORDER BY idx",
      'dspy_task',
      '[1,2]',
    );
    expect(miniCalls.map((c) => c.cost_usd)).toEqual([0.0125, 0.0213, 0.0301, 0.0111]);
    expect(miniCalls[1]).toEqual({ at: '2026-03-02T12:01:30.000Z', input_tokens: 2100, output_tokens: 95, cache_read_tokens: 1024, cost_usd: 0.0213 });

    // Test counts, and which patch failed to apply.
    const counts = rows<Record<string, number>>(
      'adapters',
      'SELECT feature, tests_passed, tests_failed FROM evaluations WHERE task = $TASK ORDER BY feature',
      'dspy_task',
      '[1,2]',
    );
    expect(counts).toEqual([
      { feature: 1, tests_passed: 12, tests_failed: 0 },
      { feature: 2, tests_passed: 34, tests_failed: 7 },
    ]);
    const [missing] = rows<{ status: string; reason: string }>('adapters', 'SELECT status, reason FROM merges WHERE task = $TASK', 'dspy_task', '[1,3]');
    expect(missing!.status).toBe('missing_input');
    expect(missing!.reason).toContain("agent1's patch did not apply (apply_status: agent1 failed, agent2 applied)");

    // The harness's steps (model calls; Claude Code's turns; OpenHands' events) and the endings.
    const agents = queryRun<{ repo: string; agent: string; steps: number; status: string }>(
      runsDir,
      'adapters',
      "SELECT t.repo, a.agent, a.steps, a.status FROM agents a JOIN tasks t ON t.id = a.task WHERE t.features = '[1,2]' ORDER BY t.repo, a.agent",
    );
    expect(agents).toEqual([
      { repo: 'dspy_task', agent: 'agent1', steps: 4, status: 'finished' },
      { repo: 'dspy_task', agent: 'agent2', steps: 3, status: 'cost_limit' },
      { repo: 'go_chi_task', agent: 'agent1', steps: 7, status: 'finished' },
      { repo: 'go_chi_task', agent: 'agent2', steps: 9, status: 'step_limit' },
      { repo: 'llama_index_task', agent: 'agent1', steps: 18, status: 'finished' },
      { repo: 'llama_index_task', agent: 'agent2', steps: 12, status: 'cost_limit' },
    ]);

    // Commands with their times and exit codes: mini-swe-agent's tool messages, Claude Code's session log.
    const miniTools = rows<{ at: string; name: string; input: string; exit_code: number }>(
      'adapters',
      "SELECT at, name, input, exit_code FROM steps WHERE task = $TASK AND agent = 'agent1' AND kind = 'tool' ORDER BY idx",
      'dspy_task',
      '[1,2]',
    );
    expect(miniTools[0]).toEqual({
      at: '2026-03-02T12:00:31.250Z',
      name: 'bash',
      input: JSON.stringify({ command: "grep -rn 'def predict' dspy/" }),
      exit_code: 0,
    });
    const claudeTools = rows<{ at: string; name: string; input: string; exit_code: number }>(
      'adapters',
      "SELECT at, name, input, exit_code FROM steps WHERE task = $TASK AND agent = 'agent2' AND kind = 'tool' ORDER BY idx",
      'go_chi_task',
      '[1,2]',
    );
    expect(claudeTools.at(-1)).toEqual({ at: '2026-03-03T15:04:00.800Z', name: 'Bash', input: JSON.stringify({ command: 'go test ./...' }), exit_code: 1 });

    // A GCP batch evaluation's union merge is a union (naive conflicted, union merged and tested).
    const [union] = rows<{ status: string }>('adapters', 'SELECT status FROM merges WHERE task = $TASK', 'go_chi_task', '[1,2]');
    expect(union!.status).toBe('union');
    const attempts = rows<{ stage: string; outcome: string; passed: number | null }>(
      'adapters',
      'SELECT stage, outcome, passed FROM merge_attempts WHERE task = $TASK ORDER BY idx',
      'go_chi_task',
      '[1,2]',
    );
    expect(attempts).toEqual([
      { stage: 'naive', outcome: 'conflict', passed: null },
      { stage: 'union', outcome: 'merged', passed: 1 },
    ]);

    // The framework, kept per task; the import and the report say the run mixes them.
    const frameworks = queryRun<{ agent_config: string }>(runsDir, 'adapters', 'SELECT DISTINCT agent_config FROM tasks ORDER BY agent_config').map(
      (r) => r.agent_config,
    );
    expect(frameworks).toEqual(['cooperbench:claude_code', 'cooperbench:mini_swe_agent_v2', 'cooperbench:openhands_sdk']);
    expect(out).toMatch(/^frameworks +claude_code \(1 tasks\), mini_swe_agent_v2 \(2 tasks\), openhands_sdk \(1 tasks\): the run mixes agent frameworks/m);
    const html = await coopBench(['report', 'adapters', '--runs-dir', runsDir, '--out', join(runsDir, 'adapters.html')]);
    expect(html.exitCode, html.all).toBe(0);
    expect(readFileSync(join(runsDir, 'adapters.html'), 'utf8')).toContain(
      '3 different agent configurations (cooperbench:claude_code: 1 tasks; cooperbench:mini_swe_agent_v2: 2 tasks',
    );

    // What is not kept: one line per kind.
    for (const kind of ['summary.json', '<id>_sent.jsonl', '<id>_full_traj.json', 'result.json run_id', 'result.json agents.patch_lines'])
      expect(out.split('\n').filter((l) => l.startsWith('not kept') && l.includes(` ${kind}: `))).toHaveLength(1);

    // The report: the imported run's tokens and cost.
    const { tasks } = await reportJson('adapters');
    const claude = tasks.find((t) => t.key.includes('go_chi_task'))!;
    expect(claude).toMatchObject({ passed: true, mergeStatus: 'union' });
  });

  it('reads zone-less local times in the zone the epoch times imply, or the one given', async () => {
    const inferred = await coopBench(['import', join(ADAPTERS, 'mini-coop'), '--name', 'zone-inferred', '--runs-dir', runsDir]);
    expect(inferred.exitCode, inferred.all).toBe(0);
    expect(inferred.stdout).toMatch(/^times +mini-coop: local times read as UTC\+02:00 \(inferred from \d+ epoch timestamps in 2 task folders\)$/m);
    const times = (run: string) =>
      rows<{ started_at: string; finished_at: string }>(run, 'SELECT started_at, finished_at FROM tasks WHERE id = $TASK', 'dspy_task', '[1,2]')[0];
    // result.json: started_at 2026-03-02T14:00:05.123456 on a UTC+02:00 machine; eval.json evaluated_at 14:20.
    expect(times('zone-inferred')).toEqual({ started_at: '2026-03-02T12:00:05.123Z', finished_at: '2026-03-02T12:20:00.000Z' });
    // Every step falls inside its task.
    const outside = rows<{ n: number }>(
      'zone-inferred',
      "SELECT COUNT(*) AS n FROM steps WHERE task = $TASK AND (at < '2026-03-02T12:00:05.123Z' OR at > '2026-03-02T12:09:40.500Z')",
      'dspy_task',
      '[1,2]',
    );
    expect(outside[0]!.n).toBe(0);
    for (const [zone, started] of [
      ['+02:00', '2026-03-02T12:00:05.123Z'],
      ['Europe/Berlin', '2026-03-02T13:00:05.123Z'],
    ] as const) {
      const name = `zone-${zone.replace(/[^A-Za-z0-9]/g, '')}`;
      const given = await coopBench(['import', join(ADAPTERS, 'mini-coop'), '--name', name, '--runs-dir', runsDir, '--timezone', zone]);
      expect(given.exitCode, given.all).toBe(0);
      expect(given.stdout).toContain(`(given with --timezone)`);
      expect(times(name)!.started_at).toBe(started);
    }
    const wrong = await coopBench(['import', join(ADAPTERS, 'mini-coop'), '--name', 'zone-wrong', '--runs-dir', runsDir, '--timezone', 'Mars/Olympus']);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('is not a time zone');
    expect(existsSync(join(runsDir, 'zone-wrong'))).toBe(false);
  });

  it("orders messages without timestamps by the send times in the senders' trajectories", async () => {
    const written = JSON.parse(readFileSync(join(ADAPTERS, MINI_TASK, 'conversation.json'), 'utf8')) as { message: string; timestamp: unknown }[];
    expect(written.map((m) => m.message.split(':')[0])).toEqual(['1', '3', '5', '2', '4', '6']);
    expect(written.every((m) => m.timestamp === null)).toBe(true);
    const imported = await coopBench(['import', join(ADAPTERS, 'mini-coop'), '--name', 'order', '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    expect(imported.stdout).toContain("6 message times recovered from the senders' trajectories");
    const stored = rows<{ sender: string; body: string; sent_at: string }>(
      'order',
      'SELECT sender, body, sent_at FROM messages WHERE task = $TASK ORDER BY sent_at, id',
      'dspy_task',
      '[1,2]',
    );
    expect(stored.map((m) => m.body.split(':')[0])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(stored.map((m) => m.sender)).toEqual(['agent1', 'agent2', 'agent1', 'agent2', 'agent1', 'agent2']);
    expect(stored[1]!.sent_at).toBe('2026-03-02T12:01:00.000Z');
  });
});

describe('hostile CooperBench logs', () => {
  /** A copy of the mini-coop run to damage. */
  function copyOfMiniRun(): string {
    const dir = tempDir('import-hostile');
    cpSync(join(ADAPTERS, 'mini-coop'), join(dir, 'mini-coop'), { recursive: true });
    return join(dir, 'mini-coop');
  }

  it('refuses an eval.json that is a named pipe at once and leaves nothing behind', async () => {
    const run = copyOfMiniRun();
    const evalJson = join(run, 'coop/dspy_task/8394/f1_f2/eval.json');
    rmSync(evalJson);
    execFileSync('mkfifo', [evalJson]);
    const refused = await coopBench(['import', run, '--name', 'fifo', '--runs-dir', runsDir]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`${evalJson} is a named pipe, not a regular file: import refused`);
    expect(readdirSync(runsDir).filter((f) => f.startsWith('fifo'))).toEqual([]);
    // The name is free: the same import without the pipe succeeds under it.
    rmSync(evalJson);
    cpSync(join(ADAPTERS, MINI_TASK, 'eval.json'), evalJson);
    const again = await coopBench(['import', run, '--name', 'fifo', '--runs-dir', runsDir]);
    expect(again.exitCode, again.all).toBe(0);
    expect(queryRun<{ status: string }>(runsDir, 'fifo', 'SELECT status FROM runs')).toEqual([{ status: 'finished' }]);
  });

  it('recomputes a both_passed that its features contradict, and says which file claimed it', async () => {
    const run = copyOfMiniRun();
    const evalJson = join(run, 'coop/dspy_task/8394/f1_f2/eval.json');
    writeFileSync(evalJson, JSON.stringify({ ...JSON.parse(readFileSync(evalJson, 'utf8')), both_passed: true }));
    const imported = await coopBench(['import', run, '--name', 'claimed', '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    expect(imported.stdout).toMatch(/^done +coop\/dspy_task\/8394\/f1_f2: .*/m);
    expect(imported.stdout).toContain('coop/dspy_task/8394/f1_f2/eval.json says both_passed true, but feature 2 failed: recomputed from the features (false)');
    expect(rows<{ both_passed: number }>('claimed', 'SELECT both_passed FROM tasks WHERE id = $TASK', 'dspy_task', '[1,2]')).toEqual([{ both_passed: 0 }]);
  });
});

describe("patches cut by the reference adapters' .strip()", () => {
  it('keeps the recorded outcome, says the harness may have caused the failure, and keeps the repaired patch', async () => {
    const dir = tempDir('import-stripped');
    const run = join(dir, 'mini-coop');
    cpSync(join(ADAPTERS, 'mini-coop'), run, { recursive: true });
    // A hunk ending in two blank context lines, as git diff writes it, after .strip().
    const whole = 'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,5 @@\n def a():\n     return 1\n+    # one\n \n \n';
    writeFileSync(join(run, 'coop/dspy_task/8394/f1_f2/agent1.patch'), whole.trim());
    const imported = await coopBench(['import', run, '--name', 'stripped', '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    expect(imported.stdout).toContain("agent1: its patch lost 2 trailing blank context lines to the adapter's .strip(), so git apply calls it corrupt");
    expect(rows<{ patch: string }>('stripped', "SELECT patch FROM agents WHERE task = $TASK AND agent = 'agent1'", 'dspy_task', '[1,2]')[0]!.patch).toBe(
      whole.trim(),
    );
    const repaired = join(runsDir, 'stripped', 'repaired-patches', 'openai_gpt-5+openai_gpt-5_coop_dspy_task_task8394_f1_f2', 'agent1.patch');
    expect(readFileSync(repaired, 'utf8')).toBe(whole);
  });
});

describe('round trip of a coop-bench run (Docker)', () => {
  it('imports its log tree to the report numbers of its run.db', async () => {
    // Containers are labelled by run name: one no other test process uses.
    const name = uniqueRun('import-oracle');
    const run = await coopBench(['run', '--models', 'oracle', '--pool', 'argkit_task', '--features', '1,2', '--name', name, '--runs-dir', runsDir]);
    expect(run.exitCode, run.all).toBe(0);
    const imported = await coopBench(['import', join(runsDir, name), '--name', 'oracle-again', '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    const original = await reportJson(name);
    const again = await reportJson('oracle-again');
    const numbers = (r: typeof original) => ({
      taskCounts: r.summary.taskCounts,
      headline: r.summary.headline,
      merges: r.summary.merges,
      difficulty: r.summary.difficulty,
      cost: r.summary.cost,
      communication: r.summary.communication,
      tasks: r.tasks
        .map(({ key, status, passed, mergeStatus, naiveClean, steps, messages }) => ({ key, status, passed, mergeStatus, naiveClean, steps, messages }))
        .sort((a, b) => a.key.localeCompare(b.key)),
    });
    expect(original.tasks.length).toBeGreaterThan(0);
    expect(numbers(again)).toEqual(numbers(original));
  });
});

describe('eval of an imported run whose patch .strip() cut (Docker)', () => {
  it('tests the repaired patch as an attempt of its own beside the outcome and says how many failures it passes', async () => {
    const pool = join(PROJECT_ROOT, 'feature-pools/tabulite_task/task1');
    const dir = tempDir('import-repaired');
    const repo = join(dir, 'repo');
    cpSync(join(pool, 'repo'), repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    // agent2 touches only the README; agent1 implements both features (the pool's combined patch)
    // and adds a line before two blank lines, so that its diff's last hunk ends in blank context lines.
    writeFileSync(join(repo, 'README.md'), `${readFileSync(join(repo, 'README.md'), 'utf8')}\nSee the tests.\n`);
    const agent2 = git('diff');
    git('checkout', '-q', '.');
    git('apply', join(pool, 'combined.patch'));
    const table = join(repo, 'tabulite/table.py');
    const last = '    return format_table(rows, headers=keys, **options)\n';
    writeFileSync(table, readFileSync(table, 'utf8').replace(last, `${last}    # rendered by format_table\n`));
    const agent1 = git('diff', '-U2');
    expect(agent1.endsWith(' \n \n')).toBe(true);

    const run = join(dir, 'mini-coop');
    const task = join(run, 'coop/tabulite_task/1/f1_f2');
    cpSync(join(ADAPTERS, 'mini-coop'), run, { recursive: true });
    rmSync(join(run, 'coop/dspy_task'), { recursive: true });
    cpSync(join(ADAPTERS, MINI_TASK), task, { recursive: true });
    for (const file of readdirSync(task).filter((f) => f.endsWith('.json')))
      writeFileSync(join(task, file), readFileSync(join(task, file), 'utf8').replaceAll('"dspy_task"', '"tabulite_task"').replaceAll('8394', '1'));
    writeFileSync(join(task, 'agent1.patch'), agent1.trim());
    writeFileSync(join(task, 'agent2.patch'), agent2.trim());

    // Containers are labelled by run name: one no other test process uses.
    const name = uniqueRun('import-repaired');
    const imported = await coopBench(['import', run, '--name', name, '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    const refused = await coopBench(['eval', '--name', name, '--runs-dir', runsDir]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('pass --pools <dir>');

    const evaluated = await coopBench(['eval', '--name', name, '--runs-dir', runsDir, '--pools', join(PROJECT_ROOT, 'feature-pools')]);
    expect(evaluated.exitCode, evaluated.all).toBe(0);
    // The recorded patches: agent1's does not apply, as in CooperBench; the result stays that failure.
    const [taskRow] = rows<{ both_passed: number }>(name, 'SELECT both_passed FROM tasks WHERE id = $TASK', 'tabulite_task', '[1,2]');
    expect(taskRow!.both_passed).toBe(0);
    expect(rows(name, 'SELECT status FROM merges WHERE task = $TASK', 'tabulite_task', '[1,2]')).toEqual([{ status: 'missing_input' }]);
    expect(
      rows(
        name,
        "SELECT outcome, passed, final, json_extract(details, '$.agents') AS agents FROM merge_attempts WHERE task = $TASK AND stage = 'repaired-patch'",
        'tabulite_task',
        '[1,2]',
      ),
    ).toEqual([{ outcome: 'merged', passed: 1, final: 0, agents: '[1]' }]);
    expect(evaluated.stdout).toContain(
      "1 of 1 failures of this run pass with the stripped patches repaired (1 of them had a patch cut by the reference adapters' .strip()",
    );
    const report = await reportJson(name);
    expect((report.summary as unknown as { repairedPatches: unknown }).repairedPatches).toEqual({ failures: 1, tried: 1, passed: 1 });
  });
});
