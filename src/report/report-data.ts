// Everything the report shows, read from a results store in one pass (read-only): runs with their
// versions and attributes, checkpoints, test sets with their content hashes and specs, scores of
// one prompt variant, and the training log.
import { ResultStore, type RunRecord, type StoredScore, type TestSetRecord, type TrainingLogRecord } from '../store/result-store.ts';
import type { SupersededGroup } from '../store/evaluation-tables.ts';
import { UserError } from '../errors.ts';
import { detectSource, readScoreInput } from '../analyze/read-scores.ts';
import type { ScoreRow } from '../analyze/score-row.ts';
import { knownNamesText } from '../closest-name.ts';

export interface ReportRun extends RunRecord {
  checkpoints: { step: number; path: string | null; contentHash: string | null }[];
  trainingLog: TrainingLogRecord[];
}

export interface ReportData {
  storePath: string;
  schemaVersion: number;
  runs: ReportRun[];
  testSets: TestSetRecord[];
  scores: StoredScore[];
  /** Every prompt variant's scores: study B reads each run's own variant (its run attribute "prompt_variant"). */
  allScores: StoredScore[];
  promptVariant: string;
  /** Scores a re-evaluation replaced (a changed checkpoint or test set), kept in the store's superseded tables; none read from scores alone. */
  superseded?: SupersededGroup[];
}

export function loadReportData(storePath: string, promptVariant = ''): ReportData {
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    const runs = store.runs().map((r) => ({ ...r, checkpoints: store.checkpoints(r.id), trainingLog: store.trainingLog(r.id) }));
    const any = store.scores();
    const scores = any.filter((s) => (s.promptVariant ?? '') === promptVariant);
    if (scores.length === 0) {
      const variants = [...new Set(any.map((s) => s.promptVariant ?? ''))].map((v) => (v === '' ? '(plain)' : v));
      throw new UserError(any.length === 0
        ? `${storePath}: the store has no scores yet`
        : `${storePath}: no scores for prompt variant "${promptVariant}" ${knownNamesText(promptVariant, variants)}`);
    }
    const testSetIds = [...new Set(scores.map((s) => s.testSet))].sort();
    const testSets = testSetIds.map((id) => store.testSet(id) ?? { id });
    return { storePath, schemaVersion: store.schemaVersion, runs, testSets, scores, allScores: any, promptVariant,
      superseded: store.evaluation.supersededGroups() };
  } finally {
    store.close();
  }
}

/**
 * The report's data from any input `analyze` takes: a store as it is, else the scores alone (runs
 * with the attributes their rows carry; no checkpoints, training log or test-set specs, which only
 * a study records).
 */
export async function loadReportInput(input: string, promptVariant = '', columns?: readonly string[]): Promise<ReportData> {
  if ((await detectSource(input)) === 'store') return loadReportData(input, promptVariant);
  return reportDataFromRows(input, (await readScoreInput(input, { columns })).rows);
}

export function reportDataFromRows(input: string, rows: readonly ScoreRow[]): ReportData {
  const runs = new Map<string, ReportRun>();
  for (const r of rows) {
    let run = runs.get(r.run);
    if (!run) runs.set(r.run, (run = { id: r.run, attributes: {}, checkpoints: [], trainingLog: [] }));
    Object.assign(run.attributes!, r.attributes);
  }
  // n 0: the input did not say it (a store's scores always have one)
  const scores: StoredScore[] = rows.map((r) => ({ run: r.run, step: r.step, testSet: r.testSet, metric: r.metric, value: r.value, n: r.n ?? 0,
    ...(r.stderr !== undefined ? { stderr: r.stderr } : {}) }));
  const testSets = [...new Set(rows.map((r) => r.testSet))].sort().map((id) => ({ id }));
  return { storePath: input, schemaVersion: 0, runs: [...runs.values()].sort((a, b) => (a.id < b.id ? -1 : 1)), testSets, scores,
    allScores: scores, promptVariant: '' };
}

/** The metrics each test set was scored with, sorted. */
export function metricsByTestSet(scores: readonly StoredScore[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const s of scores) {
    let set = out.get(s.testSet);
    if (!set) out.set(s.testSet, (set = new Set()));
    set.add(s.metric);
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}

const PREFERRED_METRICS = ['accuracy', 'acc'];

/**
 * The metric a test set is shown with: the requested one when the set has it; else the set's
 * spec.metric; else its only metric; else accuracy / acc; else the first in alphabetical order.
 */
export function metricForTestSet(available: readonly string[], spec: Record<string, unknown> | undefined, requested?: string): string {
  if (requested !== undefined && available.includes(requested)) return requested;
  const fromSpec = spec?.metric;
  if (typeof fromSpec === 'string' && available.includes(fromSpec)) return fromSpec;
  if (available.length === 1) return available[0];
  for (const m of PREFERRED_METRICS) if (available.includes(m)) return m;
  return available[0];
}
