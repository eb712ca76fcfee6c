// Everything the report shows, read from a results store in one pass (read-only): runs with their
// versions and attributes, checkpoints, test sets with their content hashes and specs, scores of
// one prompt variant, and the training log.
import { ResultStore, type RunRecord, type StoredScore, type TestSetRecord, type TrainingLogRecord } from '../store/result-store.ts';
import type { SupersededGroup } from '../store/evaluation-tables.ts';
import { UserError } from '../errors.ts';
import { detectSource, readScoreInput } from '../analyze/read-scores.ts';
import type { ScoreColumns } from '../analyze/score-columns.ts';
import { compareRunNames } from '../analyze/run-order.ts';
import { runNameMapping, SOURCE_RUN_ATTRIBUTE, type RunNaming } from '../analyze/run-names.ts';
import { knownNamesText } from '../closest-name.ts';
import type { ExampleResultSource } from '../analyze/example-results.ts';
import { storeExampleResults } from '../analyze/store-example-results.ts';

export interface ReportRun extends RunRecord {
  /**
   * The store's checkpoint rows; for a run with none (scores read from a table or folder, a store
   * that recorded no checkpoints) the steps it has scores at, with neither path nor hash.
   */
  checkpoints: { step: number; path: string | null; contentHash: string | null }[];
  trainingLog: TrainingLogRecord[];
}

export interface ReportData {
  storePath: string;
  /** The per-example results behind the scores, where the input holds them (analyze/example-results.ts). */
  exampleResults?: ExampleResultSource;
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
    const runs = store.runs().sort((a, b) => compareRunNames(a.id, b.id))
      .map((r) => ({ ...r, checkpoints: store.checkpoints(r.id), trainingLog: store.trainingLog(r.id) }));
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
    return { storePath, schemaVersion: store.schemaVersion, runs: withScoredSteps(runs, any), testSets, scores, allScores: any, promptVariant,
      exampleResults: storeExampleResults(storePath, promptVariant),
      superseded: store.evaluation.supersededGroups() };
  } finally {
    store.close();
  }
}

/**
 * The report's data from any input `analyze` takes: a store as it is, else the scores alone (runs
 * with the attributes their rows carry, the model, training set, method and seed among them filling
 * the run's fields, and the steps they have scores at as checkpoints; no checkpoint paths or hashes or
 * test-set specs, which only a study records).
 * Runs are renamed as `runNames` says (run-names.ts), a store's as its scores are; a Trainer
 * folder's runs carry the training log its log_history holds.
 */
export async function loadReportInput(input: string, promptVariant = '', columns?: readonly string[], runNames: RunNaming = {},
): Promise<ReportData> {
  if ((await detectSource(input)) === 'store') return renameStoreRuns(loadReportData(input, promptVariant), runNames);
  const reading = await readScoreInput(input, { columns, runNames });
  const data = reportDataFromScores(input, reading.scores, reading.trainingLog);
  return reading.exampleResults ? { ...data, exampleResults: reading.exampleResults } : data;
}

function renameStoreRuns(data: ReportData, naming: RunNaming): ReportData {
  if (naming.stripPrefix === undefined && naming.names === undefined) return data;
  const { map } = runNameMapping(data.runs.map((r) => r.id), naming);
  const to = (run: string) => map.get(run) ?? run;
  const runs = data.runs.map((r) => (to(r.id) === r.id ? r : {
    ...r, id: to(r.id), attributes: { [SOURCE_RUN_ATTRIBUTE]: r.id, ...r.attributes },
    trainingLog: r.trainingLog.map((l) => ({ ...l, run: to(l.run) })),
  }));
  return {
    ...data, runs: runs.sort((a, b) => compareRunNames(a.id, b.id)),
    scores: data.scores.map((s) => ({ ...s, run: to(s.run) })), allScores: data.allScores.map((s) => ({ ...s, run: to(s.run) })),
    ...(data.superseded ? { superseded: data.superseded.map((g) => ({ ...g, run: to(g.run) })) } : {}),
  };
}

export function reportDataFromScores(input: string, rows: ScoreColumns, trainingLog: readonly TrainingLogRecord[] = []): ReportData {
  const runs = new Map<string, ReportRun>();
  for (const [run, attributes] of rows.mergedAttributes()) {
    runs.set(rows.runs[run], { id: rows.runs[run], attributes, checkpoints: [], trainingLog: [] });
  }
  // a run with a training log and no scores is not shown: the reading's note names it
  for (const l of trainingLog) runs.get(l.run)?.trainingLog.push(l);
  for (const run of runs.values()) Object.assign(run, recordFields(run.attributes!));
  // n 0: the input did not say it (a store's scores always have one)
  const scores: StoredScore[] = Array.from({ length: rows.length }, (_, i) => {
    const stderr = rows.stderrOf(i);
    return { run: rows.runs[rows.runOf(i)], step: rows.stepOf(i), testSet: rows.testSets[rows.testSetOf(i)], metric: rows.metrics[rows.metricOf(i)],
      value: rows.valueOf(i), n: rows.nOf(i) ?? 0, ...(stderr !== undefined ? { stderr } : {}) };
  });
  const testSets = [...rows.testSets].sort().map((id) => ({ id }));
  return { storePath: input, schemaVersion: 0, runs: withScoredSteps([...runs.values()].sort((a, b) => compareRunNames(a.id, b.id)), scores),
    testSets, scores, allScores: scores, promptVariant: '' };
}

/**
 * The run-record fields a score table's columns give (model, training_set, method, seed: the names
 * a store's runs have), so a table's runs fill the same columns a study's do; the attributes keep
 * them too, as the analysis reads them there. A seed that is not a whole number stays an attribute only.
 */
function recordFields(attributes: Record<string, unknown>): Partial<RunRecord> {
  const text = (k: string) => (typeof attributes[k] === 'string' && attributes[k] !== '' ? attributes[k] as string : undefined);
  const out: Partial<RunRecord> = {};
  if (text('model') !== undefined) out.model = text('model');
  if (text('training_set') !== undefined) out.trainingSet = text('training_set');
  if (text('method') !== undefined) out.method = text('method');
  const seed = text('seed');
  if (seed !== undefined && /^-?\d+$/.test(seed.trim())) out.seed = Number(seed);
  return out;
}

/** Runs without checkpoint rows get the steps they have scores at (any prompt variant), so none reads "0 checkpoints" beside its curves. */
function withScoredSteps(runs: ReportRun[], scores: readonly StoredScore[]): ReportRun[] {
  const steps = new Map<string, Set<number>>();
  for (const s of scores) {
    let set = steps.get(s.run);
    if (!set) steps.set(s.run, (set = new Set()));
    set.add(s.step);
  }
  return runs.map((r) => (r.checkpoints.length ? r : {
    ...r, checkpoints: [...(steps.get(r.id) ?? [])].sort((x, y) => x - y).map((step) => ({ step, path: null, contentHash: null })),
  }));
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
