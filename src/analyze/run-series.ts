// Groups score rows into one table per run: the checkpoints' steps, and for each test set its
// values at those steps. Only steps where every test set of the run has a value are kept, so that
// every correlation in a run uses the same checkpoints; the steps left out are reported. Where the
// input says how noisy each score is (a stderr, or the number of examples behind a proportion), the
// series carries each checkpoint's sampling variance, for the analysis to correct for.
import { UserError } from '../errors.ts';
import type { RunRecord } from '../store/result-store.ts';
import { isFractionMetric, type ScoreRow } from './score-row.ts';
import { compareRunNames } from './run-order.ts';
import { ScoreColumns, type ScoreRowInput } from './score-columns.ts';
import { sameStepsInGroups, type ScoreIndex } from './score-index.ts';

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
  /**
   * Test set -> the covariance of its scores' sampling errors across the checkpoints (row-major,
   * steps x steps), where known: a fixed test set's errors persist between checkpoints.
   */
  samplingCovariance?: Map<string, Float64Array>;
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

export function availableMetrics(rows: readonly ScoreRow[] | ScoreColumns): string[] {
  return rows instanceof ScoreColumns ? [...rows.metrics].sort() : [...new Set(rows.map((r) => r.metric))].sort();
}

export type { ScoreRowInput } from './score-columns.ts';

/**
 * Builds per-run series for one metric, in run order (run-order.ts), from a reading's score columns
 * or from rows built in memory; duplicate (run, step, test set) rows are an error.
 */
export function buildRunSeries(rows: readonly ScoreRowInput[] | ScoreColumns, metric: string, opts: RunSeriesOptions = {}): RunSeries[] {
  const columns = rows instanceof ScoreColumns ? rows : columnsOfMetric(rows, metric);
  const m = columns.findMetric(metric);
  if (m === undefined) return [];
  columns.refuseDuplicates(m);
  const index = columns.index();
  const groupsByRun = new Map<number, number[]>();
  for (let g = 0; g < index.groupRun.length; g++) {
    if (index.groupMetric[g] !== m) continue;
    const run = index.groupRun[g];
    const list = groupsByRun.get(run);
    if (list) list.push(g);
    else groupsByRun.set(run, [g]);
  }
  const attributes = columns.mergedAttributes((i) => columns.metricOf(i) === m);
  return [...groupsByRun].sort(([a], [b]) => compareRunNames(columns.runs[a], columns.runs[b]))
    .map(([run, groups]) => seriesOf(columns, index, run, groups, metric, attributes.get(run) ?? {}, opts));
}

/** In-memory rows of `metric` as columns, each checked as it comes (a duplicate before a malformed row is the error, as read). */
function columnsOfMetric(rows: readonly ScoreRowInput[], metric: string): ScoreColumns {
  const columns = new ScoreColumns();
  rows.forEach((row, i) => {
    if (row.metric !== metric) return;
    try {
      checkShape(row, row.origin ?? `rows[${i}]`);
    } catch (err) {
      columns.refuseDuplicates();
      throw err;
    }
    columns.addRow(row, i);
  });
  return columns;
}

function seriesOf(columns: ScoreColumns, index: ScoreIndex, run: number, groups: number[], metric: string, attributes: Record<string, string>,
  opts: RunSeriesOptions): RunSeries {
  const { order, start } = index;
  const sets = groups.map((g) => ({ g, name: columns.testSets[index.groupTestSet[g]] }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const testSets = sets.map((s) => s.name);
  const common = sameStepsInGroups(columns, index, sets.map((s) => s.g));
  const allSteps: number[] = common ? Array.from(common) : unionOfSteps(columns, index, sets);
  // which sets have a score at each step (each group's steps are sorted and distinct: two pointers)
  const has = common ? sets.map(() => new Uint8Array(allSteps.length).fill(1)) : sets.map(({ g }) => {
    const flags = new Uint8Array(allSteps.length);
    let p = 0;
    for (let j = start[g]; j < start[g + 1]; j++) {
      const step = columns.stepOf(order[j]);
      while (allSteps[p] < step) p++;
      flags[p] = 1;
    }
    return flags;
  });
  const steps: number[] = [];
  const incompleteSteps: RunSeries['incompleteSteps'] = [];
  const complete = new Uint8Array(allSteps.length);
  allSteps.forEach((step, p) => {
    // the list only for an incomplete step, not an array made per step
    let full = true;
    for (let s = 0; s < has.length && full; s++) full = has[s][p] !== 0;
    if (!full) incompleteSteps.push({ step, missing: testSets.filter((_, s) => has[s][p] === 0) });
    else { steps.push(step); complete[p] = 1; }
  });
  const values = new Map<string, Float64Array>();
  const variances = new Map<string, Float64Array>();
  // no score gives an n or a stderr and no --sample-size: no variance can be known, none is asked for
  const someVariance = columns.anyN || columns.anyStderr || opts.sampleSize !== undefined;
  for (const { g, name } of sets) {
    const kept = new Float64Array(steps.length);
    const variance = new Float64Array(someVariance ? steps.length : 0);
    let known = someVariance && steps.length > 0;
    let q = 0, p = 0;
    for (let j = start[g]; j < start[g + 1]; j++, p++) {
      const step = columns.stepOf(order[j]);
      while (allSteps[p] < step) p++;
      if (complete[p] === 0) continue;
      const i = order[j];
      kept[q] = columns.valueOf(i);
      if (someVariance) {
        const v = samplingVariance(metric, kept[q], columns.nOf(i), columns.stderrOf(i), opts.sampleSize);
        if (v === undefined) known = false;
        else variance[q] = v;
      }
      q++;
    }
    values.set(name, kept);
    if (known) variances.set(name, variance);
  }
  return { run: columns.runs[run], steps, values, attributes, incompleteSteps, samplingVariance: variances };
}

/** The sorted distinct steps of the sets' groups together. */
function unionOfSteps(columns: ScoreColumns, index: ScoreIndex, sets: readonly { g: number }[]): number[] {
  const { order, start } = index;
  let total = 0;
  for (const { g } of sets) total += start[g + 1] - start[g];
  const every = new Float64Array(total);
  let k = 0;
  for (const { g } of sets) for (let j = start[g]; j < start[g + 1]; j++) every[k++] = columns.stepOf(order[j]);
  every.sort();
  const allSteps: number[] = [];
  for (let j = 0; j < every.length; j++) if (j === 0 || every[j] !== every[j - 1]) allSteps.push(every[j]);
  return allSteps;
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
export function samplingVariance(metric: string, value: number, n: number | undefined, stderr: number | undefined,
  sampleSize?: number): number | undefined {
  if (stderr !== undefined) return stderr * stderr;
  const size = n ?? sampleSize;
  if (size === undefined || !isFractionMetric(metric)) return undefined;
  return (value * (1 - value)) / size;
}
