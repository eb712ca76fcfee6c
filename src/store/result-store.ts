// The results database (SQLite through better-sqlite3). Every write of more than one row runs in
// one transaction, so a killed process leaves each batch either wholly stored or not at all.
import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { UserError } from '../errors.ts';
import { reportStoreProblems, storeError } from './store-errors.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { EvaluationTables } from './evaluation-tables.ts';

/** The store's file name where none is given: a study's out/ folder, and --store's default. */
export const DEFAULT_STORE_FILE = 'results.sqlite';

export interface RunRecord {
  id: string;
  model?: string | null;
  trainingSet?: string | null;
  method?: string | null;
  seed?: number | null;
  studyFile?: string | null;
  /** The folder the run's checkpoints come from (recorded once, by the first evaluation that names one). */
  checkpointFolder?: string | null;
  versions?: Record<string, string>;
  attributes?: Record<string, unknown>;
}

export interface CheckpointRecord { run: string; step: number; path?: string | null; contentHash?: string | null }
export interface TestSetRecord { id: string; contentHash?: string | null; n?: number | null; spec?: Record<string, unknown> }

export interface StoredScore {
  run: string;
  step: number;
  testSet: string;
  promptVariant?: string;
  metric: string;
  value: number;
  n: number;
  /** Never stored: the standard error a score read from another input (the report's) gave. */
  stderr?: number;
}

export interface PredictionRecord {
  run: string;
  step: number;
  testSet: string;
  promptVariant?: string;
  exampleId: string;
  prediction: string | null;
  gold: string | null;
  detail?: Record<string, unknown>;
}

/** A stored prediction as the share metrics read it (ResultStore.iterateAnswers). */
export interface StoredAnswer { step: number; exampleId: string; prediction: string | null; gold: string | null; predictionNorm: unknown }

export interface TrainingLogRecord {
  run: string; step: number; loss?: number | null; learningRate?: number | null;
  gradNorm?: number | null; tokensPerSecond?: number | null;
}

export interface ScoreFilter { run?: string; metric?: string; promptVariant?: string }

/**
 * How long an open or a write waits for another process's lock before giving up (30 s; the
 * environment's GENSTUDY_BUSY_TIMEOUT_MS, for tests that hold a lock, makes it shorter).
 */
const BUSY_TIMEOUT_MS = Number(process.env.GENSTUDY_BUSY_TIMEOUT_MS) > 0 ? Number(process.env.GENSTUDY_BUSY_TIMEOUT_MS) : 30_000;

/**
 * Runs `fn`, trying again while SQLite answers SQLITE_BUSY, up to the busy timeout. Some lock
 * requests (a journal-mode switch, a lock held by a process mid-recovery) are answered busy at once
 * instead of waiting, so processes opening one new store together would otherwise fail.
 */
function whenNotBusy<T>(fn: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    try {
      return fn();
    } catch (err) {
      if (!String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY') || Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
    }
  }
}

/**
 * A connection that reads only. SQLite's read-only connections cannot remove a WAL store's -wal and
 * -shm files, so a reader closing last (the report after a run) left them beside the store; a
 * writable connection told to run no writes (query_only) removes them as the last writer would.
 * Where the store cannot be opened for writing (a read-only disk or file), a read-only one it is.
 */
/**
 * better-sqlite3, loaded when a store is first opened: a command that reads a CSV (analyze) does not
 * pay for loading it (its 13 modules and native binding, ~20 ms a start).
 */
function sqlite(): typeof Database {
  return createRequire(import.meta.url)('better-sqlite3') as typeof Database;
}

function openForReading(path: string): Database.Database {
  const Sqlite = sqlite();
  try {
    const db = new Sqlite(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    db.pragma('query_only = ON');
    return db;
  } catch (err) {
    if (!/SQLITE_(READONLY|CANTOPEN|PERM)|EACCES|EROFS/.test(`${(err as { code?: string }).code} ${(err as Error).message}`)) throw err;
    return new Sqlite(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  }
}

export class ResultStore {
  readonly path: string;
  private readonly db: Database.Database;

  /** The evaluation cache and the archive of superseded rows, on this store's connection. */
  readonly evaluation: EvaluationTables;

  private constructor(path: string, db: Database.Database) {
    this.path = path;
    this.db = db;
    this.evaluation = new EvaluationTables(db);
  }

  /** Opens (creating if needed) a store and brings its schema up to date. */
  static open(path: string, opts: { readonly?: boolean } = {}): ResultStore {
    if (!opts.readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    let db: Database.Database;
    try {
      // A writer holding the lock (another process migrating, a long batch) is waited for, not an error.
      db = opts.readonly ? openForReading(path) : new (sqlite())(path, { timeout: BUSY_TIMEOUT_MS });
    } catch (err) {
      const problem = storeError(path, err, BUSY_TIMEOUT_MS);
      throw problem instanceof UserError ? problem : new UserError(`${path}: cannot open the results store: ${(err as Error).message}`);
    }
    try {
      return ResultStore.prepare(path, db, opts);
    } catch (err) {
      if (db.open) db.close();
      throw storeError(path, err, BUSY_TIMEOUT_MS);
    }
  }

  /** A store's connection made ready: its pragmas set, its schema brought up to date. */
  private static prepare(path: string, db: Database.Database, opts: { readonly?: boolean }): ResultStore {
    db.pragma('foreign_keys = ON');
    if (!opts.readonly) {
      // WAL is a property of the file: only its first opener switches it (which needs the file to
      // itself, and SQLite answers a busy switch at once rather than through the busy timeout).
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') whenNotBusy(() => db.pragma('journal_mode = WAL'));
      db.pragma('synchronous = NORMAL');
    }
    const store = new ResultStore(path, db);
    if (opts.readonly && store.schemaVersion < SCHEMA_VERSION && store.schemaVersion > 0) {
      // Migrations only add tables and columns, so bringing an older store up to date before
      // reading it loses nothing; a store this process may not write to stays an error.
      db.close();
      ResultStore.open(path).close();
      return ResultStore.open(path, opts);
    }
    store.migrate(opts.readonly ?? false);
    return store;
  }

  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  private migrate(readonly: boolean): void {
    const check = (current: number): boolean => {
      if (current > SCHEMA_VERSION) {
        throw new UserError(`${this.path}: the store has schema version ${current}, newer than this genstudy understands ` +
          `(${SCHEMA_VERSION}); upgrade genstudy`);
      }
      if (current === SCHEMA_VERSION) return false;
      if (readonly) {
        throw new UserError(`${this.path}: the store has schema version ${current} and needs migrating to ${SCHEMA_VERSION}; open it writable once`);
      }
      return true;
    };
    if (!check(this.schemaVersion)) return;
    // The version is read again inside the write lock (BEGIN IMMEDIATE): processes opening a new
    // store at the same moment migrate it once, the others see the migrated version.
    whenNotBusy(() => this.db.transaction(() => {
      const current = this.schemaVersion;
      if (!check(current)) return;
      for (let v = current; v < SCHEMA_VERSION; v++) this.db.exec(MIGRATIONS[v]);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate());
  }

  close(): void {
    this.db.close();
  }

  /** Runs `fn` in one transaction: all of its writes land, or none do. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  upsertRun(run: RunRecord): void {
    this.db.prepare(`
      INSERT INTO runs (id, model, training_set, method, seed, study_file, checkpoint_folder, versions, attributes)
      VALUES (@id, @model, @trainingSet, @method, @seed, @studyFile, @checkpointFolder, @versions, @attributes)
      ON CONFLICT (id) DO UPDATE SET
        model = excluded.model, training_set = excluded.training_set, method = excluded.method,
        seed = excluded.seed, study_file = excluded.study_file, versions = excluded.versions,
        attributes = excluded.attributes,
        checkpoint_folder = COALESCE(runs.checkpoint_folder, excluded.checkpoint_folder)`).run({
      id: run.id,
      model: run.model ?? null,
      trainingSet: run.trainingSet ?? null,
      method: run.method ?? null,
      seed: run.seed ?? null,
      studyFile: run.studyFile ?? null,
      checkpointFolder: run.checkpointFolder ?? null,
      versions: JSON.stringify(run.versions ?? {}),
      attributes: JSON.stringify(run.attributes ?? {}),
    });
  }

  runs(): RunRecord[] {
    const rows = this.db.prepare(`SELECT * FROM runs ORDER BY id`).all() as Record<string, unknown>[];
    return rows.map((r) => ({
      id: r.id as string,
      model: r.model as string | null,
      trainingSet: r.training_set as string | null,
      method: r.method as string | null,
      seed: r.seed as number | null,
      studyFile: r.study_file as string | null,
      checkpointFolder: r.checkpoint_folder as string | null,
      versions: JSON.parse(r.versions as string),
      attributes: JSON.parse(r.attributes as string),
    }));
  }

  /**
   * Records where run `run`'s checkpoints come from, unless a folder is recorded already: the first
   * one stays the run's, so a run named explicitly (--run) over two folders keeps its origin.
   */
  recordCheckpointFolder(run: string, folder: string): void {
    this.db.prepare(`UPDATE runs SET checkpoint_folder = ? WHERE id = ? AND checkpoint_folder IS NULL`).run(folder, run);
  }

  /** Returns the checkpoint's row id, creating the run row (bare) and checkpoint row if needed. */
  upsertCheckpoint(cp: CheckpointRecord): number {
    this.db.prepare(`INSERT INTO runs (id) VALUES (?) ON CONFLICT (id) DO NOTHING`).run(cp.run);
    const row = this.db.prepare(`
      INSERT INTO checkpoints (run_id, step, path, content_hash) VALUES (?, ?, ?, ?)
      ON CONFLICT (run_id, step) DO UPDATE SET
        path = COALESCE(excluded.path, checkpoints.path),
        content_hash = COALESCE(excluded.content_hash, checkpoints.content_hash)
      RETURNING id`).get(cp.run, cp.step, cp.path ?? null, cp.contentHash ?? null) as { id: number };
    return row.id;
  }

  checkpoints(run: string): { step: number; path: string | null; contentHash: string | null }[] {
    return this.db.prepare(`SELECT step, path, content_hash AS contentHash FROM checkpoints WHERE run_id = ? ORDER BY step`).all(run) as never;
  }

  upsertTestSet(ts: TestSetRecord): void {
    this.db.prepare(`
      INSERT INTO test_sets (id, content_hash, n, spec) VALUES (?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET
        content_hash = COALESCE(excluded.content_hash, test_sets.content_hash),
        n = COALESCE(excluded.n, test_sets.n),
        spec = CASE WHEN excluded.spec = '{}' THEN test_sets.spec ELSE excluded.spec END`)
      .run(ts.id, ts.contentHash ?? null, ts.n ?? null, JSON.stringify(ts.spec ?? {}));
  }

  testSet(id: string): TestSetRecord | undefined {
    const r = this.db.prepare(`SELECT * FROM test_sets WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
    if (!r) return undefined;
    return { id: r.id as string, contentHash: r.content_hash as string | null, n: r.n as number | null, spec: JSON.parse(r.spec as string) };
  }

  /** Writes a batch of scores in one transaction (replacing earlier values of the same key). */
  writeScores(scores: readonly StoredScore[]): void {
    const insertTestSet = this.db.prepare(`INSERT INTO test_sets (id) VALUES (?) ON CONFLICT (id) DO NOTHING`);
    const insertScore = this.db.prepare(`
      INSERT INTO scores (checkpoint_id, test_set_id, prompt_variant, metric, value, n) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (checkpoint_id, test_set_id, prompt_variant, metric) DO UPDATE SET value = excluded.value, n = excluded.n`);
    const checkpointIds = new Map<string, number>();
    const forgetSource = this.cellSourceForgetter();
    this.transaction(() => {
      for (const s of scores) {
        if (!Number.isFinite(s.value)) {
          throw new UserError(`score ${s.run}@${s.step} ${s.testSet} ${s.metric}: value ${s.value} is not a finite number`);
        }
        const key = `${s.run}\u0000${s.step}`;
        let cp = checkpointIds.get(key);
        if (cp === undefined) {
          cp = this.upsertCheckpoint({ run: s.run, step: s.step });
          checkpointIds.set(key, cp);
        }
        insertTestSet.run(s.testSet);
        forgetSource(cp, s.testSet, s.promptVariant ?? '');
        insertScore.run(cp, s.testSet, s.promptVariant ?? '', s.metric, s.value, s.n);
      }
    });
  }

  /**
   * Rows written to a cell no longer prove where the cell comes from (cell_sources, migration 6):
   * its fingerprint is removed, once per cell of a batch; the evaluation records it again after.
   */
  private cellSourceForgetter(): (checkpointId: number, testSet: string, promptVariant: string) => void {
    const remove = this.db.prepare(`DELETE FROM cell_sources WHERE checkpoint_id = ? AND test_set_id = ? AND prompt_variant = ?`);
    const done = new Set<string>();
    return (checkpointId, testSet, promptVariant) => {
      const key = `${checkpointId}\u0000${testSet}\u0000${promptVariant}`;
      if (done.has(key)) return;
      done.add(key);
      remove.run(checkpointId, testSet, promptVariant);
    };
  }

  scores(filter: ScoreFilter = {}): StoredScore[] {
    return [...this.iterateScores(filter)];
  }

  /**
   * The scores one at a time, in scores()'s order, without an array of them all (a sweep's store
   * holds millions). The connection runs no other statement until the iteration ends.
   */
  iterateScores(filter: ScoreFilter = {}): IterableIterator<StoredScore> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.run !== undefined) { where.push('c.run_id = ?'); params.push(filter.run); }
    if (filter.metric !== undefined) { where.push('s.metric = ?'); params.push(filter.metric); }
    if (filter.promptVariant !== undefined) { where.push('s.prompt_variant = ?'); params.push(filter.promptVariant); }
    const sql = `
      SELECT c.run_id AS run, c.step AS step, s.test_set_id AS testSet, s.prompt_variant AS promptVariant,
             s.metric AS metric, s.value AS value, s.n AS n
      FROM scores s JOIN checkpoints c ON c.id = s.checkpoint_id
      ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
      ORDER BY c.run_id, c.step, s.test_set_id, s.prompt_variant, s.metric`;
    return this.db.prepare(sql).iterate(...params) as IterableIterator<StoredScore>;
  }

  /** Writes a batch of per-example predictions in one transaction. */
  writePredictions(preds: readonly PredictionRecord[]): void {
    const insertTestSet = this.db.prepare(`INSERT INTO test_sets (id) VALUES (?) ON CONFLICT (id) DO NOTHING`);
    const insert = this.db.prepare(`
      INSERT INTO predictions (checkpoint_id, test_set_id, prompt_variant, example_id, prediction, gold, detail)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (checkpoint_id, test_set_id, prompt_variant, example_id) DO UPDATE SET
        prediction = excluded.prediction, gold = excluded.gold, detail = excluded.detail`);
    const forgetSource = this.cellSourceForgetter();
    const checkpointIds = new Map<string, number>();
    this.transaction(() => {
      for (const p of preds) {
        const key = `${p.run}\u0000${p.step}`;
        let cp = checkpointIds.get(key);
        if (cp === undefined) {
          cp = this.upsertCheckpoint({ run: p.run, step: p.step });
          checkpointIds.set(key, cp);
        }
        insertTestSet.run(p.testSet);
        forgetSource(cp, p.testSet, p.promptVariant ?? '');
        insert.run(cp, p.testSet, p.promptVariant ?? '', p.exampleId, p.prediction, p.gold, JSON.stringify(p.detail ?? {}));
      }
    });
  }

  predictions(run: string, step: number, testSet: string, promptVariant = ''): PredictionRecord[] {
    const rows = this.db.prepare(`
      SELECT p.example_id, p.prediction, p.gold, p.detail FROM predictions p
      JOIN checkpoints c ON c.id = p.checkpoint_id
      WHERE c.run_id = ? AND c.step = ? AND p.test_set_id = ? AND p.prompt_variant = ?
      ORDER BY p.example_id`).all(run, step, testSet, promptVariant) as Record<string, string>[];
    return rows.map((r) => ({
      run, step, testSet, promptVariant, exampleId: r.example_id, prediction: r.prediction, gold: r.gold, detail: JSON.parse(r.detail),
    }));
  }

  /** Whether any per-example answer of this prompt variant is stored. */
  hasAnswers(promptVariant = ''): boolean {
    return this.db.prepare('SELECT 1 FROM predictions WHERE prompt_variant = ? LIMIT 1').get(promptVariant) !== undefined;
  }

  /**
   * One run's stored answers on one test set at every checkpoint, by step then example, without
   * their details but the normalised prediction (acc_norm's): what a share metric's per-example
   * results across checkpoints are read from.
   */
  iterateAnswers(run: string, testSet: string, promptVariant = ''): IterableIterator<StoredAnswer> {
    return this.db.prepare(`
      SELECT c.step AS step, p.example_id AS exampleId, p.prediction AS prediction, p.gold AS gold,
             json_extract(p.detail, '$.predictionNorm') AS predictionNorm
      FROM predictions p JOIN checkpoints c ON c.id = p.checkpoint_id
      WHERE c.run_id = ? AND p.test_set_id = ? AND p.prompt_variant = ?
      ORDER BY c.step, p.example_id`).iterate(run, testSet, promptVariant) as IterableIterator<StoredAnswer>;
  }

  writeTrainingLog(rows: readonly TrainingLogRecord[]): void {
    const insert = this.db.prepare(`
      INSERT INTO training_log (run_id, step, loss, learning_rate, grad_norm, tokens_per_second) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (run_id, step) DO UPDATE SET loss = excluded.loss, learning_rate = excluded.learning_rate,
        grad_norm = excluded.grad_norm, tokens_per_second = excluded.tokens_per_second`);
    const ensureRun = this.db.prepare(`INSERT INTO runs (id) VALUES (?) ON CONFLICT (id) DO NOTHING`);
    this.transaction(() => {
      for (const r of rows) {
        ensureRun.run(r.run);
        insert.run(r.run, r.step, r.loss ?? null, r.learningRate ?? null, r.gradNorm ?? null, r.tokensPerSecond ?? null);
      }
    });
  }

  trainingLog(run: string): TrainingLogRecord[] {
    return this.db.prepare(`
      SELECT run_id AS run, step, loss, learning_rate AS learningRate, grad_norm AS gradNorm, tokens_per_second AS tokensPerSecond
      FROM training_log WHERE run_id = ? ORDER BY step`).all(run) as TrainingLogRecord[];
  }
}

// SQLite can find the store damaged, or another process keeping it locked, at any query.
reportStoreProblems(ResultStore.prototype, (s: ResultStore) => s['db'], BUSY_TIMEOUT_MS);
reportStoreProblems(EvaluationTables.prototype, (t: EvaluationTables) => t['db'], BUSY_TIMEOUT_MS);
