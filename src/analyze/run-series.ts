// Groups score rows into one table per run: the checkpoints' steps, and for each test set its
// values at those steps. Only steps where every test set of the run has a value are kept, so that
// every correlation in a run uses the same checkpoints; the steps left out are reported. Where the
// input says how noisy each score is (a stderr, or the number of examples behind a proportion), the
// series carries each checkpoint's sampling variance, for the analysis to correct for.
import { UserError } from '../errors.ts';
import type { RunRecord } from '../store/result-store.ts';
import { isFractionMetric, type ScoreRow } from './score-row.ts';
import { compareRunNames } from './run-order.ts';

export interface RunSeries {
  run: string;
  steps: number[];
  /** Test set -> values aligned with `steps`. */
  values: Map<string, Float64Array>;
  attributes: Record<string, string>;
  /** Steps dropped because some test set had no value there, with the sets that lacked one. */
  incompleteSteps: { step: number; missing: string[] }[];
  /**
   * Test set -> each checkpoint's sampling variance of its score, aligned with `steps`: stderr^2
   * where the input gives a stderr, else value * (1 - value) / n for a fraction metric with a known
   * n. Only test sets where every kept step has one; absent (or no entry) when the input says nothing.
   */
  samplingVariance?: Map<string, Float64Array>;
}

export interface RunSeriesOptions {
  /** Examples behind every score that gives neither its own n nor a stderr (--sample-size). */
  sampleSize?: number;
}

/**
 * A stored run's attributes as a series carries them (the meta-regression's moderators): its
 * columns and its attributes, each as text, those without a value left out. One rule for the
 * analysis of a store and the report's.
 */
export function runAttributes(r: RunRecord): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ model: r.model, training_set: r.trainingSet, method: r.method, seed: r.seed, ...r.attributes })) {
    if (v !== null && v !== undefined) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

export function availableMetrics(rows: readonly ScoreRow[]): string[] {
  return [...new Set(rows.map((r) => r.metric))].sort();
}

/** A score row as a library caller may build it in memory: where it was read and the run's attributes are optional. */
export type ScoreRowInput = Omit<ScoreRow, 'attributes' | 'origin'> & Partial<Pick<ScoreRow, 'attributes' | 'origin'>>;

/** Builds per-run series for one metric, in run order (run-order.ts); duplicate (run, step, test set) rows are an error. */
export function buildRunSeries(rows: readonly ScoreRowInput[], metric: string, opts: RunSeriesOptions = {}): RunSeries[] {
  const byRun = new Map<string, { cells: Map<string, Map<number, ScoreRowInput>>; attributes: Record<string, string> }>();
  const originOf = (row: ScoreRowInput, i: number) => row.origin ?? `rows[${i}]`;
  rows.forEach((row, i) => {
    if (row.metric !== metric) return;
    checkShape(row, originOf(row, i));
    let run = byRun.get(row.run);
    if (!run) byRun.set(row.run, (run = { cells: new Map(), attributes: {} }));
    Object.assign(run.attributes, row.attributes);
    let bySet = run.cells.get(row.testSet);
    if (!bySet) run.cells.set(row.testSet, (bySet = new Map()));
    const earlier = bySet.get(row.step);
    if (earlier) {
      throw new UserError(`${originOf(row, i)}: duplicate score for run "${row.run}", step ${row.step}, test set "${row.testSet}", metric ` +
        `"${metric}" (first given at ${originOf(earlier, rows.indexOf(earlier))})`);
    }
    bySet.set(row.step, row);
  });
  const out: RunSeries[] = [];
  for (const [run, { cells, attributes }] of [...byRun].sort(([a], [b]) => compareRunNames(a, b))) {
    const testSets = [...cells.keys()].sort();
    const allSteps = [...new Set(testSets.flatMap((t) => [...cells.get(t)!.keys()]))].sort((a, b) => a - b);
    const steps: number[] = [];
    const incompleteSteps: RunSeries['incompleteSteps'] = [];
    for (const step of allSteps) {
      const missing = testSets.filter((t) => !cells.get(t)!.has(step));
      if (missing.length) incompleteSteps.push({ step, missing });
      else steps.push(step);
    }
    const values = new Map<string, Float64Array>();
    const samplingVariance = new Map<string, Float64Array>();
    for (const t of testSets) {
      const bySet = cells.get(t)!;
      values.set(t, Float64Array.from(steps, (s) => bySet.get(s)!.value));
      const variances = steps.map((s) => samplingVarianceOf(bySet.get(s)!, opts.sampleSize));
      if (steps.length && variances.every((v) => v !== undefined)) samplingVariance.set(t, Float64Array.from(variances as number[]));
    }
    out.push({ run, steps, values, attributes, incompleteSteps, samplingVariance });
  }
  return out;
}

/** Rows built in memory may carry a file's column names (test_set) instead of ScoreRow's: say so, not "undefined". */
function checkShape(row: ScoreRowInput, origin: string): void {
  const wrong = typeof row.run !== 'string' ? 'run' : typeof row.testSet !== 'string' ? 'testSet'
    : !Number.isFinite(row.step) ? 'step' : typeof row.value !== 'number' ? 'value' : undefined;
  if (wrong === undefined) return;
  throw new UserError(`${origin}: a score row needs ${wrong} (rows are { run, step, testSet, metric, value }, as readScores returns ` +
    `them); this one has ${Object.keys(row).join(', ')}`);
}

/**
 * One score's sampling variance: its stderr squared, else for a proportion over n examples
 * p(1 - p) / n. That is the binomial variance at the observed proportion, with n rather than n - 1:
 * the variance of the score itself, not an unbiased estimate of the per-example variance.
 */
export function samplingVarianceOf(row: ScoreRowInput, sampleSize?: number): number | undefined {
  if (row.stderr !== undefined) return row.stderr * row.stderr;
  const n = row.n ?? sampleSize;
  if (n === undefined || !isFractionMetric(row.metric)) return undefined;
  return (row.value * (1 - row.value)) / n;
}
