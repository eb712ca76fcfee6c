// A fixed test set's errors' covariance across checkpoints, from per-example results. An
// evaluation scores every checkpoint on the same examples, so the score's errors persist from one
// checkpoint to the next; the correction for the control's noise takes them as independent unless
// it is given their covariance (RunSeries.samplingCovariance, docs/analyze.md "fixed test sets"),
// which each checkpoint's result on each example estimates (a results store's answers, lm-eval's
// samples files: example-results.ts). Only where the results give back the score at every
// checkpoint the run's series keeps; anything else is named in a note.
import { shareCovariance } from '../stats/example-covariance.ts';
import type { ExampleResult, ExampleResultSource } from './example-results.ts';
import type { RunSeries } from './run-series.ts';
import { SOURCE_RUN_ATTRIBUTE } from './run-names.ts';

/** A share's mean over its results differs from the score by rounding at most. */
const SAME_SCORE = 1e-9;

export interface ErrorCovarianceOptions {
  metric: string;
  /** The test sets to estimate it for (the analysis needs the control's). */
  testSets: readonly string[];
}

/**
 * Sets each series' samplingCovariance for the named test sets from the per-example results, where
 * every kept checkpoint has results on the same examples that give its score. Returns notes on the
 * runs where some results were found but could not be used (none at all, as for scores without
 * per-example results, says nothing: the analysis's caveat covers a noisy control without a covariance).
 */
export function attachErrorCovariance(series: readonly RunSeries[], source: ExampleResultSource, opts: ErrorCovarianceOptions): string[] {
  const notes: string[] = [];
  for (const s of series) {
    const run = s.attributes[SOURCE_RUN_ATTRIBUTE] ?? s.run;
    for (const testSet of opts.testSets) {
      const values = s.values.get(testSet);
      const results = values === undefined ? undefined : source(run, testSet, opts.metric);
      if (results === undefined) continue;
      const read = resultsAtSteps(results, s.steps, values!);
      if (typeof read === 'string') {
        if (read !== '') {
          notes.push(`run "${s.run}", ${testSet}: ${read}; its ${opts.metric}'s sampling errors are taken as independent between checkpoints`);
        }
        continue;
      }
      (s.samplingCovariance ??= new Map()).set(testSet, shareCovariance(read));
    }
  }
  return notes;
}

/**
 * Each kept step's 0/1 results on the examples, in one example order; '' when there are none,
 * else why they cannot be used. Read in one pass, step by step, keeping the bits and the
 * first kept step's example ids only (a store of 1000 checkpoints x 5000 examples is 5M answers).
 */
function resultsAtSteps(results: Iterable<ExampleResult>, steps: readonly number[], values: Float64Array): Uint8Array[] | string {
  const wanted = new Map(steps.map((step, k) => [step, k]));
  const right: (Uint8Array | undefined)[] = steps.map(() => undefined);
  let order: string[] | undefined;
  let any = false, k: number | undefined, bits: number[] = [], ids: string[] = [];
  const close = (): string | undefined => {
    if (k === undefined) return undefined;
    if (order === undefined) order = ids;
    else if (ids.length !== order.length || ids.some((id, i) => id !== order![i])) {
      return `the results at step ${steps[k]} are on other examples than at another checkpoint (${ids.length} and ${order.length})`;
    }
    const r = Uint8Array.from(bits);
    const share = r.reduce((t, x) => t + x, 0) / r.length;
    if (Math.abs(share - values[k]) > SAME_SCORE) return `the results at step ${steps[k]} give ${share}, not its score ${values[k]}`;
    right[k] = r;
    return undefined;
  };
  let last: number | undefined;
  for (const a of results) {
    any = true;
    if (a.step !== last) {
      const why = close();
      if (why !== undefined) return why;
      last = a.step;
      k = wanted.get(a.step);
      bits = [];
      ids = [];
    }
    if (k === undefined) continue;
    bits.push(a.right ? 1 : 0);
    ids.push(a.exampleId);
  }
  const why = close();
  if (why !== undefined) return why;
  if (!any) return '';
  const missing = steps.filter((_, j) => right[j] === undefined);
  if (missing.length) return `no per-example results at ${missing.length} of its ${steps.length} checkpoints (e.g. step ${missing[0]})`;
  return right as Uint8Array[];
}
