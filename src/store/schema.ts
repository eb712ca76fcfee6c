// The results database's schema as an ordered list of migrations. The database's `user_version`
// pragma records how many have been applied; opening a store applies the rest in one transaction,
// so a database is always at a version this list describes. Never edit a shipped migration:
// append a new one.

export const MIGRATIONS: readonly string[] = [
  // 1: runs, checkpoints, test sets, scores, predictions.
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    model TEXT,
    training_set TEXT,
    method TEXT,
    seed INTEGER,
    study_file TEXT,
    versions TEXT NOT NULL DEFAULT '{}',      -- JSON: genstudy and library versions
    attributes TEXT NOT NULL DEFAULT '{}',    -- JSON: anything else (shots, lr, source file, ...)
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
  CREATE TABLE checkpoints (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    path TEXT,
    content_hash TEXT,
    UNIQUE (run_id, step)
  );
  CREATE TABLE test_sets (
    id TEXT PRIMARY KEY,
    content_hash TEXT,
    n INTEGER,
    spec TEXT NOT NULL DEFAULT '{}'           -- JSON: how the set was made
  );
  CREATE TABLE scores (
    checkpoint_id INTEGER NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
    test_set_id TEXT NOT NULL REFERENCES test_sets(id),
    prompt_variant TEXT NOT NULL DEFAULT '',
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (checkpoint_id, test_set_id, prompt_variant, metric)
  );
  CREATE TABLE predictions (
    checkpoint_id INTEGER NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
    test_set_id TEXT NOT NULL REFERENCES test_sets(id),
    prompt_variant TEXT NOT NULL DEFAULT '',
    example_id TEXT NOT NULL,
    prediction TEXT,
    gold TEXT,
    detail TEXT NOT NULL DEFAULT '{}',        -- JSON: label log-probs, generated text, ...
    PRIMARY KEY (checkpoint_id, test_set_id, prompt_variant, example_id)
  );
  `,
  // 2: the training log (loss, learning rate, gradient norm, throughput per step).
  `
  CREATE TABLE training_log (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    loss REAL,
    learning_rate REAL,
    grad_norm REAL,
    tokens_per_second REAL,
    PRIMARY KEY (run_id, step)
  );
  `,
  // 3: the evaluation cache (one engine answer per example, keyed by a content hash of model,
  // test set, prompt, scoring mode and example) and the archive of scores and predictions that a
  // changed test set or checkpoint superseded (src/evaluate: nothing stored is ever dropped).
  `
  CREATE TABLE evaluation_cache (
    key TEXT PRIMARY KEY,                     -- sha256 hex, see src/evaluate/cache-key.ts
    model_id TEXT NOT NULL,
    test_set_id TEXT NOT NULL,
    test_set_hash TEXT NOT NULL,
    example_id TEXT NOT NULL,
    mode TEXT NOT NULL,                       -- first-token | full-word | generate
    answer TEXT NOT NULL,                     -- JSON: the engine's answer for this example
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
  CREATE INDEX evaluation_cache_model ON evaluation_cache (model_id, test_set_id);
  CREATE TABLE superseded_scores (
    run_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    checkpoint_hash TEXT,
    test_set_id TEXT NOT NULL,
    test_set_hash TEXT,
    prompt_variant TEXT NOT NULL,
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    n INTEGER NOT NULL,
    reason TEXT NOT NULL,
    superseded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
  CREATE TABLE superseded_predictions (
    run_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    checkpoint_hash TEXT,
    test_set_id TEXT NOT NULL,
    test_set_hash TEXT,
    prompt_variant TEXT NOT NULL,
    example_id TEXT NOT NULL,
    prediction TEXT,
    gold TEXT,
    detail TEXT NOT NULL,
    reason TEXT NOT NULL,
    superseded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
  `,
  // 4: which engine or servers gave each cached answer (the built-in engine: "builtin"; servers:
  // their base URLs, space-separated), so what one server answered can be dropped
  // (genstudy cache drop --source URL). Answers cached before this migration have none.
  `
  ALTER TABLE evaluation_cache ADD COLUMN source TEXT;
  CREATE INDEX evaluation_cache_source ON evaluation_cache (source);
  `,
  // 5: the folder a run's checkpoints come from (evaluate's --model, watch's folder), so that two
  // trainings whose folders share a name (exp1/output, exp2/output) cannot merge into one run.
  // Runs stored before it have none; their checkpoints' recorded paths stand in for it
  // (src/evaluate/run-folder.ts) until an evaluation records it.
  `
  ALTER TABLE runs ADD COLUMN checkpoint_folder TEXT;
  `,
  // 6: where each evaluated cell's stored predictions and scores come from: a hash of everything
  // they depend on (the model key, every example's cache key digest, the task, the golds, the metric
  // options; src/evaluate/plan.ts cellDigest). An evaluation whose cell has the same fingerprint skips
  // it, so a resumed study does no per-example work on what is done. Written in the transaction that
  // writes the cell; removed with its scores (superseded, rewritten by another writer) and when
  // cached answers of its model are dropped.
  `
  CREATE TABLE cell_sources (
    checkpoint_id INTEGER NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
    test_set_id TEXT NOT NULL,
    prompt_variant TEXT NOT NULL DEFAULT '',
    model_id TEXT NOT NULL,                   -- the cache's model key the answers were asked of
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (checkpoint_id, test_set_id, prompt_variant)
  );
  CREATE INDEX cell_sources_model ON cell_sources (model_id);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
