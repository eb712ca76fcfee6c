// The evaluation's own tables in the results store (migration 3 of schema.ts): the per-example
// answer cache and the archive of superseded scores and predictions. They share the ResultStore's
// connection (ResultStore.evaluation), so one process holds one handle on a store.
import type Database from 'better-sqlite3';
import { UserError } from '../errors.ts';

export interface CacheEntry {
  key: string;
  modelId: string;
  /** What answered: "builtin", or the servers' base URLs space-separated (null: unknown). */
  source: string | null;
  testSetId: string;
  testSetHash: string;
  exampleId: string;
  /** The engine call the answer is for (evaluate's EngineMode). */
  mode: string;
  answer: unknown;
}

export interface CacheGroup { source: string | null; modelId: string; answers: number; first: string; last: string }
export interface CacheFilter { source?: string; modelId?: string; since?: string; until?: string }

const likeEscape = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface SupersededCounts { scores: number; predictions: number; runs: string[] }

/** Scores one cause superseded in one run: the steps, how many scores, and when (the latest). */
export interface SupersededGroup { run: string; reason: string; steps: number[]; scores: number; at: string }

const KEYS_PER_QUERY = 500;

// JSON has no NaN or infinities; a log-probability can be -Infinity, so they are written as tagged strings.
const toJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v));
const fromJson = (text: string): unknown =>
  JSON.parse(text, (_k, v: unknown) => (v !== null && typeof v === 'object' && '$number' in v ? Number((v as { $number: string }).$number) : v));

export class EvaluationTables {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  /** Cached answers for the keys that have one. */
  lookup(keys: readonly string[]): Map<string, unknown> {
    const out = new Map<string, unknown>();
    for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
      const part = keys.slice(i, i + KEYS_PER_QUERY);
      const rows = this.db.prepare(`SELECT key, answer FROM evaluation_cache WHERE key IN (${part.map(() => '?').join(',')})`)
        .all(...part) as { key: string; answer: string }[];
      for (const r of rows) out.set(r.key, fromJson(r.answer));
    }
    return out;
  }

  /** The keys that have a cached answer (without reading the answers). */
  existing(keys: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
      const part = keys.slice(i, i + KEYS_PER_QUERY);
      const rows = this.db.prepare(
        `SELECT key FROM evaluation_cache WHERE key IN (${part.map(() => '?').join(',')})`).all(...part) as { key: string }[];
      for (const r of rows) out.add(r.key);
    }
    return out;
  }

  /** Stores a batch of answers in one transaction. */
  put(entries: readonly CacheEntry[]): void {
    const insert = this.db.prepare(`
      INSERT INTO evaluation_cache (key, model_id, source, test_set_id, test_set_hash, example_id, mode, answer)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`);
    this.db.transaction(() => {
      for (const e of entries) insert.run(e.key, e.modelId, e.source, e.testSetId, e.testSetHash, e.exampleId, e.mode, toJson(e.answer));
    }).immediate();
  }

  /** The cache by who answered and for which model: counts and the time span of each group. */
  cacheGroups(): CacheGroup[] {
    return this.db.prepare(`
      SELECT source, model_id AS modelId, COUNT(*) AS answers, MIN(created_at) AS first, MAX(created_at) AS last
      FROM evaluation_cache GROUP BY source, model_id ORDER BY first`).all() as CacheGroup[];
  }

  /**
   * Drops the cached answers that match every given filter (one transaction), so the next
   * evaluation asks again: `source` a server's base URL (matching entries of a pool it was part
   * of), `modelId` a model key or its prefix, `since` / `until` ISO times (created_at, inclusive).
   * Returns how many were dropped. Scores already written stay until that evaluation rewrites them.
   */
  dropCache(filter: CacheFilter): number {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.source !== undefined) { where.push(`(' ' || source || ' ') LIKE ? ESCAPE '\\'`); params.push(`% ${likeEscape(filter.source)} %`); }
    if (filter.modelId !== undefined) { where.push(`model_id LIKE ? ESCAPE '\\'`); params.push(`${likeEscape(filter.modelId)}%`); }
    if (filter.since !== undefined) { where.push('created_at >= ?'); params.push(filter.since); }
    if (filter.until !== undefined) { where.push('created_at <= ?'); params.push(filter.until); }
    if (where.length === 0) throw new UserError('dropping cached answers needs a filter (source, model or time); refusing to drop the whole cache');
    return this.db.transaction(() => {
      // Cells evaluated on this model's answers are evaluated again (their fingerprints go), so the
      // next evaluation asks for the dropped answers and rewrites the scores.
      this.db.prepare(`DELETE FROM cell_sources WHERE model_id IN (SELECT DISTINCT model_id FROM evaluation_cache WHERE ${where.join(' AND ')})`)
        .run(...params);
      return this.db.prepare(`DELETE FROM evaluation_cache WHERE ${where.join(' AND ')}`).run(...params).changes;
    }).immediate();
  }

  /**
   * The fingerprints of the cells stored for a run's checkpoints, by step, then `test set\u0000variant`:
   * one query for the whole run.
   */
  cellSources(run: string): Map<number, Map<string, string>> {
    const rows = this.db.prepare(`
      SELECT c.step AS step, s.test_set_id AS testSet, s.prompt_variant AS variant, s.fingerprint AS fingerprint
      FROM cell_sources s JOIN checkpoints c ON c.id = s.checkpoint_id WHERE c.run_id = ?`)
      .all(run) as { step: number; testSet: string; variant: string; fingerprint: string }[];
    const out = new Map<number, Map<string, string>>();
    for (const r of rows) {
      let cells = out.get(r.step);
      if (!cells) out.set(r.step, cells = new Map());
      cells.set(`${r.testSet}\u0000${r.variant}`, r.fingerprint);
    }
    return out;
  }

  /** Records where a cell's predictions and scores come from; call in the transaction that writes them, after them. */
  recordCellSource(c: { run: string; step: number; testSet: string; promptVariant: string; modelId: string; fingerprint: string }): void {
    this.db.prepare(`
      INSERT INTO cell_sources (checkpoint_id, test_set_id, prompt_variant, model_id, fingerprint)
      SELECT id, ?, ?, ?, ? FROM checkpoints WHERE run_id = ? AND step = ?
      ON CONFLICT (checkpoint_id, test_set_id, prompt_variant) DO UPDATE SET model_id = excluded.model_id, fingerprint = excluded.fingerprint`)
      .run(c.testSet, c.promptVariant, c.modelId, c.fingerprint, c.run, c.step);
  }

  cacheSize(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM evaluation_cache`).get() as { n: number }).n;
  }

  /**
   * A test set's content changed: in one transaction, copy every score and prediction made on its
   * old content (all runs) into the superseded tables, remove them, and record the new hash and n.
   */
  supersedeTestSet(id: string, oldHash: string | null, newHash: string, n: number, reason: string): SupersededCounts {
    return this.db.transaction(() => {
      const where = `s.test_set_id = ?`;
      const counts = this.archive(where, [id], oldHash, reason);
      this.db.prepare(`DELETE FROM scores WHERE test_set_id = ?`).run(id);
      this.db.prepare(`DELETE FROM predictions WHERE test_set_id = ?`).run(id);
      this.db.prepare(`DELETE FROM cell_sources WHERE test_set_id = ?`).run(id);
      this.db.prepare(`UPDATE test_sets SET content_hash = ?, n = ? WHERE id = ?`).run(newHash, n, id);
      return counts;
    }).immediate();
  }

  /** A checkpoint's weights changed under the same (run, step): archive and remove its scores and predictions. */
  supersedeCheckpoint(run: string, step: number, newHash: string, reason: string): SupersededCounts {
    return this.db.transaction(() => {
      const cp = this.db.prepare(`SELECT id FROM checkpoints WHERE run_id = ? AND step = ?`).get(run, step) as { id: number } | undefined;
      if (!cp) return { scores: 0, predictions: 0, runs: [] };
      const counts = this.archive(`s.checkpoint_id = ?`, [cp.id], undefined, reason);
      this.db.prepare(`DELETE FROM scores WHERE checkpoint_id = ?`).run(cp.id);
      this.db.prepare(`DELETE FROM predictions WHERE checkpoint_id = ?`).run(cp.id);
      this.db.prepare(`DELETE FROM cell_sources WHERE checkpoint_id = ?`).run(cp.id);
      this.db.prepare(`UPDATE checkpoints SET content_hash = ? WHERE id = ?`).run(newHash, cp.id);
      return counts;
    }).immediate();
  }

  /** What re-evaluations superseded, per run and cause, for the report's provenance. */
  supersededGroups(): SupersededGroup[] {
    const rows = this.db.prepare(`
      SELECT run_id AS run, reason, json_group_array(DISTINCT step) AS steps, COUNT(*) AS scores, MAX(superseded_at) AS at
      FROM superseded_scores GROUP BY run_id, reason ORDER BY run_id, at`).all() as { run: string; reason: string; steps: string; scores: number;
      at: string }[];
    return rows.map((r) => ({ ...r, steps: (JSON.parse(r.steps) as number[]).sort((a, b) => a - b) }));
  }

  /** Copies the score and prediction rows matching `where` (alias s) into the superseded tables. */
  private archive(where: string, params: unknown[], testSetHash: string | null | undefined, reason: string): SupersededCounts {
    const hashExpr = testSetHash === undefined ? 't.content_hash' : '?';
    const hashParam = testSetHash === undefined ? [] : [testSetHash];
    const scores = this.db.prepare(`
      INSERT INTO superseded_scores (run_id, step, checkpoint_hash, test_set_id, test_set_hash, prompt_variant, metric, value, n, reason)
      SELECT c.run_id, c.step, c.content_hash, s.test_set_id, ${hashExpr}, s.prompt_variant, s.metric, s.value, s.n, ?
      FROM scores s JOIN checkpoints c ON c.id = s.checkpoint_id LEFT JOIN test_sets t ON t.id = s.test_set_id
      WHERE ${where}`).run(...hashParam, reason, ...params).changes;
    const predictions = this.db.prepare(`
      INSERT INTO superseded_predictions (run_id, step, checkpoint_hash, test_set_id, test_set_hash, prompt_variant, example_id,
        prediction, gold, detail, reason)
      SELECT c.run_id, c.step, c.content_hash, s.test_set_id, ${hashExpr}, s.prompt_variant, s.example_id, s.prediction, s.gold, s.detail, ?
      FROM predictions s JOIN checkpoints c ON c.id = s.checkpoint_id LEFT JOIN test_sets t ON t.id = s.test_set_id
      WHERE ${where}`).run(...hashParam, reason, ...params).changes;
    const runs = (this.db.prepare(`
      SELECT DISTINCT c.run_id AS run FROM scores s JOIN checkpoints c ON c.id = s.checkpoint_id WHERE ${where}
      UNION SELECT DISTINCT c.run_id FROM predictions s JOIN checkpoints c ON c.id = s.checkpoint_id WHERE ${where}
      ORDER BY 1`).all(...params, ...params) as { run: string }[]).map((r) => r.run);
    return { scores, predictions, runs };
  }
}
