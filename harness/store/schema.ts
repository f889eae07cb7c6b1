// run.db schema as ordered migrations: a store opened by a newer coop-bench is brought up to date,
// never rewritten. Append new migrations; never edit one that has shipped.
export const migrations: string[] = [
  `
  CREATE TABLE runs (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
    options TEXT NOT NULL
  );
  CREATE TABLE tasks (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    models TEXT NOT NULL,
    setting TEXT NOT NULL CHECK (setting IN ('coop', 'solo')),
    variant TEXT NOT NULL DEFAULT '',
    repo TEXT NOT NULL,
    task_id INTEGER NOT NULL,
    features TEXT NOT NULL,
    pool_dir TEXT NOT NULL,
    image TEXT,
    base_rev TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'error', 'interrupted')),
    error TEXT,
    both_passed INTEGER,
    started_at TEXT,
    finished_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE agents (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    agent TEXT NOT NULL,
    model TEXT NOT NULL,
    features TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    steps INTEGER NOT NULL,
    patch TEXT NOT NULL,
    PRIMARY KEY (task, agent)
  );
  CREATE TABLE merges (
    task INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('clean', 'union', 'llm', 'conflict', 'missing_input')),
    strategy TEXT,
    naive_clean INTEGER NOT NULL,
    union_used INTEGER NOT NULL,
    llm_used INTEGER NOT NULL,
    conflict_regions INTEGER NOT NULL,
    files TEXT NOT NULL,
    dropped_test_files TEXT NOT NULL,
    reason TEXT,
    patch TEXT NOT NULL,
    timings TEXT NOT NULL
  );
  CREATE TABLE evaluations (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    feature INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    exit_code INTEGER,
    timed_out INTEGER NOT NULL,
    framework TEXT,
    tests_passed INTEGER,
    tests_failed INTEGER,
    cause TEXT,
    output TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    PRIMARY KEY (task, feature)
  );
  `,
  // Agents at work: steps, model calls, and the message bus (one row per message, one per delivery).
  `
  CREATE TABLE steps (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    agent TEXT NOT NULL,
    idx INTEGER NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('tool', 'model', 'message', 'note')),
    name TEXT,
    input TEXT,
    output TEXT,
    exit_code INTEGER,
    PRIMARY KEY (task, agent, idx)
  );
  CREATE TABLE model_calls (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    agent TEXT NOT NULL,
    idx INTEGER NOT NULL,
    at TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    latency_ms INTEGER NOT NULL,
    PRIMARY KEY (task, agent, idx)
  );
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    sender TEXT NOT NULL,
    recipients TEXT NOT NULL,
    body TEXT NOT NULL,
    sent_at TEXT NOT NULL
  );
  CREATE INDEX messages_by_task ON messages(task, id);
  CREATE TABLE message_deliveries (
    message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    recipient TEXT NOT NULL,
    delivered_at TEXT,
    PRIMARY KEY (message, recipient)
  );
  `,
  // Judge labels, each with the evidence that backs it (quotes checked against the judged material).
  `
  CREATE TABLE judge_labels (
    id INTEGER PRIMARY KEY,
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    judge TEXT NOT NULL,
    label TEXT NOT NULL,
    is_primary INTEGER NOT NULL DEFAULT 0,
    message_id INTEGER,
    agent TEXT,
    description TEXT,
    evidence TEXT NOT NULL,
    model TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX judge_labels_by_task ON judge_labels(task, judge);
  `,
  // Judging: one row per task and judge (status, dropped labels, metrics, cost of the calls behind
  // the labels), and the cache of validated LLM answers keyed by a hash of judge, prompt version,
  // model and prompt, so that judging the same input again makes no model call.
  `
  CREATE TABLE judge_runs (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    judge TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'skipped', 'error')),
    reason TEXT,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    labels INTEGER NOT NULL,
    dropped_labels INTEGER NOT NULL,
    dropped TEXT NOT NULL,
    metrics TEXT NOT NULL,
    cached INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    latency_ms INTEGER NOT NULL,
    judged_at TEXT NOT NULL,
    PRIMARY KEY (task, judge)
  );
  CREATE TABLE judge_cache (
    input_hash TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    answer TEXT NOT NULL,
    calls INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    latency_ms INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
  // The LLM merge stage per pair (paper table 6): whether it ran, its outcome, latency and regions.
  `
  ALTER TABLE merges ADD COLUMN llm_outcome TEXT CHECK (llm_outcome IN ('accepted', 'rejected', 'skipped', 'error'));
  ALTER TABLE merges ADD COLUMN llm_reason TEXT;
  ALTER TABLE merges ADD COLUMN llm_latency_ms REAL;
  ALTER TABLE merges ADD COLUMN llm_model TEXT;
  ALTER TABLE merges ADD COLUMN llm_regions TEXT;
  `,
  // Runs over several Docker engines: the engine each task ran on. Test results cached by their
  // inputs (image id, tests patch, code under test, limits) so that evaluating the same code again
  // runs no container; evaluations say when their result came from that cache.
  `
  ALTER TABLE tasks ADD COLUMN docker_host TEXT;
  ALTER TABLE evaluations ADD COLUMN cached INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE test_cache (
    image_id TEXT NOT NULL,
    tests_hash TEXT NOT NULL,
    patch_hash TEXT NOT NULL,
    settings TEXT NOT NULL,
    result TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (image_id, tests_hash, patch_hash, settings)
  );
  `,
  // The merge cascade as data: one row per stage attempt (stage, outcome, merged-patch hash, test
  // results), so that adding a stage changes no table. Earlier runs' merges become attempts (their
  // order probe was never run); `merges` loses its stage columns and its CHECK on the stage names.
  // sha256_hex is a function the store registers (run-store.ts).
  `
  CREATE TABLE merge_attempts (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    stage TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT,
    patch_hash TEXT,
    tests TEXT,
    passed INTEGER,
    final INTEGER NOT NULL DEFAULT 0,
    details TEXT,
    duration_ms REAL,
    PRIMARY KEY (task, idx)
  );
  CREATE TEMP VIEW legacy_merges AS
    SELECT m.*, t.both_passed,
      (SELECT json_group_array(json_object('feature', e.feature, 'passed', json(CASE WHEN e.passed = 1 THEN 'true' ELSE 'false' END), 'cached', json(CASE WHEN e.cached = 1 THEN 'true' ELSE 'false' END)))
       FROM evaluations e WHERE e.task = m.task) AS tests
    FROM merges m JOIN tasks t ON t.id = m.task WHERE m.status <> 'missing_input';
  INSERT INTO merge_attempts (task, idx, stage, outcome, patch_hash, tests, passed, final, duration_ms)
    SELECT task, 0, 'naive', CASE WHEN naive_clean = 1 THEN 'merged' ELSE 'conflict' END,
      CASE WHEN naive_clean = 1 THEN sha256_hex(patch) END, CASE WHEN naive_clean = 1 THEN tests END,
      CASE WHEN naive_clean = 1 THEN both_passed END, naive_clean, CASE WHEN json_valid(timings) THEN json_extract(timings, '$.naive') END
    FROM legacy_merges;
  INSERT INTO merge_attempts (task, idx, stage, outcome, patch_hash, tests, passed, final, duration_ms)
    SELECT task, 1, 'union', CASE WHEN status IN ('union', 'llm') THEN 'merged' ELSE 'conflict' END,
      CASE WHEN status = 'union' THEN sha256_hex(patch) END, CASE WHEN status = 'union' THEN tests END,
      CASE status WHEN 'union' THEN both_passed WHEN 'llm' THEN 0 END, status = 'union', CASE WHEN json_valid(timings) THEN json_extract(timings, '$.union') END
    FROM legacy_merges WHERE naive_clean = 0;
  INSERT INTO merge_attempts (task, idx, stage, outcome, reason, patch_hash, tests, passed, final, details, duration_ms)
    SELECT task, 2, 'llm', CASE llm_outcome WHEN 'accepted' THEN 'merged' ELSE llm_outcome END, llm_reason,
      CASE WHEN status = 'llm' THEN sha256_hex(patch) END, CASE WHEN status = 'llm' THEN tests END,
      CASE WHEN status = 'llm' THEN both_passed END, status = 'llm',
      json_object('model', llm_model, 'latencyMs', llm_latency_ms, 'regions', json(CASE WHEN json_valid(llm_regions) THEN llm_regions ELSE '[]' END)),
      llm_latency_ms
    FROM legacy_merges WHERE llm_outcome IS NOT NULL;
  DROP VIEW legacy_merges;
  CREATE TABLE merges_by_stage (
    task INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    strategy TEXT,
    conflict_regions INTEGER NOT NULL,
    files TEXT NOT NULL,
    dropped_test_files TEXT NOT NULL,
    reason TEXT,
    patch TEXT NOT NULL,
    timings TEXT NOT NULL
  );
  INSERT INTO merges_by_stage SELECT task, status, strategy, conflict_regions, files, dropped_test_files, reason, patch, timings FROM merges;
  DROP TABLE merges;
  ALTER TABLE merges_by_stage RENAME TO merges;
  `,
  // Error accounting and real model APIs. A task that did not finish says why: the infrastructure
  // (engine, network, a provider failing after its retries), the harness itself, or an interruption;
  // the report shows these beside every rate. The agent configuration's hash goes with each task, so
  // results of different prompts are never pooled silently. Model calls keep the prompt cache's
  // reads and writes (5-minute and 1-hour), the reasoning tokens and why the model stopped.
  `
  ALTER TABLE tasks ADD COLUMN error_kind TEXT CHECK (error_kind IN ('infrastructure', 'harness', 'interrupted'));
  ALTER TABLE tasks ADD COLUMN agent_config TEXT;
  ALTER TABLE model_calls ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE model_calls ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE model_calls ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE model_calls ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE model_calls ADD COLUMN stop_reason TEXT;
  `,
  // The open marker (database.ts): set, and checkpointed into run.db itself, when a writer opens the
  // store; cleared when it closes cleanly. Set with no run.db-wal beside the file means the
  // write-ahead log, where the latest results were, is lost.
  `
  CREATE TABLE store_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    writer_opened_at TEXT
  );
  INSERT INTO store_state (id, writer_opened_at) VALUES (1, NULL);
  `,
  // A task a pool defect ended (a gold patch that does not apply) has its own error kind, 'pool'
  // (SQLite changes a CHECK only by rebuilding the table; foreign keys are off while migrating, so
  // the rows that point at tasks stay). writes_in_wal (database.ts): 1 once the writer has written
  // past its last checkpoint, so a WAL that a client checkpointed into run.db is told from a lost one.
  `
  CREATE TABLE tasks_rebuilt (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    models TEXT NOT NULL,
    setting TEXT NOT NULL CHECK (setting IN ('coop', 'solo')),
    variant TEXT NOT NULL DEFAULT '',
    repo TEXT NOT NULL,
    task_id INTEGER NOT NULL,
    features TEXT NOT NULL,
    pool_dir TEXT NOT NULL,
    image TEXT,
    base_rev TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'error', 'interrupted')),
    error TEXT,
    both_passed INTEGER,
    started_at TEXT,
    finished_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    docker_host TEXT,
    error_kind TEXT CHECK (error_kind IN ('infrastructure', 'harness', 'pool', 'interrupted')),
    agent_config TEXT
  );
  INSERT INTO tasks_rebuilt SELECT id, key, models, setting, variant, repo, task_id, features, pool_dir, image, base_rev, status, error,
    both_passed, started_at, finished_at, attempts, docker_host, error_kind, agent_config FROM tasks;
  DROP TABLE tasks;
  ALTER TABLE tasks_rebuilt RENAME TO tasks;
  ALTER TABLE store_state ADD COLUMN writes_in_wal INTEGER NOT NULL DEFAULT 0;
  `,
  // Who sat in each seat: 'model' (an agent: every seat before people could take one) or 'human'
  // (coop-bench play), and a person's active time in milliseconds (NULL for a model).
  `
  ALTER TABLE agents ADD COLUMN seat TEXT NOT NULL DEFAULT 'model' CHECK (seat IN ('model', 'human'));
  ALTER TABLE agents ADD COLUMN active_ms INTEGER;
  `,
  // Run conditions (harness/messaging/conditions.ts): the conditions each task ran under (JSON,
  // null: none), and when a message may reach its recipients (null: at once; --latency).
  `
  ALTER TABLE tasks ADD COLUMN conditions TEXT;
  ALTER TABLE messages ADD COLUMN deliver_after TEXT;
  `,
  // What a run costs in CPU: one row per `run` command that ran tasks, with the pairs it ran and the
  // CPU seconds of its agent containers, its test containers, the engine's daemons on this machine
  // (NULL when they could not be read) and the coop-bench process itself. The summary divides the
  // sums by the pairs.
  `
  CREATE TABLE cpu_usage (
    recorded_at TEXT NOT NULL,
    pairs INTEGER NOT NULL CHECK (pairs > 0),
    agent_s REAL NOT NULL CHECK (agent_s >= 0),
    test_s REAL NOT NULL CHECK (test_s >= 0),
    engine_s REAL CHECK (engine_s >= 0),
    harness_s REAL NOT NULL CHECK (harness_s >= 0)
  );
  `,
  // Belief probes (--probe; reports/analysis/probes.ts): per agent and step, the raw answer (or the
  // error of a probe call that failed), the belief read from it (JSON, NULL when unparsable or
  // failed), what the partners' patches touched when it was asked (JSON) and what the call cost.
  `
  CREATE TABLE probes (
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    agent TEXT NOT NULL,
    step INTEGER NOT NULL CHECK (step > 0),
    at TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('answered', 'unparsable', 'failed')),
    answer TEXT NOT NULL,
    belief TEXT,
    partners_touched TEXT NOT NULL,
    input_tokens INTEGER NOT NULL CHECK (input_tokens >= 0),
    output_tokens INTEGER NOT NULL CHECK (output_tokens >= 0),
    cost_usd REAL NOT NULL CHECK (cost_usd >= 0),
    PRIMARY KEY (task, agent, step)
  );
  `,
];
