// The control's sampling errors' covariance across checkpoints, from a results store's per-example
// answers. genstudy's evaluations score every checkpoint on the same examples, so the score's
// errors persist from one checkpoint to the next; the correction for the control's noise takes
// them as independent unless it is given their covariance (RunSeries.samplingCovariance,
// docs/analyze.md "fixed test sets"), and the store holds what it is estimated from: each
// checkpoint's answer to each example. Only for the metrics that are a share of right answers, by
// the rule that computed them (src/evaluate/cell-metrics.ts), and only where the answers give back
// the stored score at every checkpoint the run's series keeps; anything else is named in a note.
import type { ResultStore, StoredAnswer } from '../store/result-store.ts';
import { shareCovariance } from '../stats/example-covariance.ts';
import type { RunSeries } from './run-series.ts';
import { SOURCE_RUN_ATTRIBUTE } from './run-names.ts';

/** The metrics that are a share of right answers, and when a stored answer is right (as src/evaluate/cell-metrics.ts scores it). */
const SHARE_METRICS: Readonly<Record<string, (a: StoredAnswer) => boolean>> = {
  accuracy: (a) => a.prediction !== null && a.prediction === a.gold,
  acc_norm: (a) => a.predictionNorm !== null && a.predictionNorm === a.gold,
};

/** A stored share's mean over its answers differs from the stored score by rounding at most. */
const SAME_SCORE = 1e-9;

export interface StoredCovarianceOptions {
  metric: string;
  /** The test sets to estimate it for (the analysis needs the control's). */
  testSets: readonly string[];
  promptVariant?: string;
}

/**
 * Sets each series' samplingCovariance for the named test sets from the store's answers, where
 * the metric is a share of right answers and every kept checkpoint has answers to the same
 * examples that give its stored score. Returns notes on the runs where some answers were stored but
 * could not be used (none stored at all, as for scores imported from another tool, says nothing:
 * the analysis's caveat covers a noisy control without a covariance).
 */
export function attachStoredErrorCovariance(series: readonly RunSeries[], store: ResultStore, opts: StoredCovarianceOptions): string[] {
  const isRight = SHARE_METRICS[opts.metric];
  if (isRight === undefined) return [];
  const notes: string[] = [];
  for (const s of series) {
    const run = s.attributes[SOURCE_RUN_ATTRIBUTE] ?? s.run;
    for (const testSet of opts.testSets) {
      const values = s.values.get(testSet);
      if (values === undefined) continue;
      const read = answersAtSteps(store.iterateAnswers(run, testSet, opts.promptVariant ?? ''), s.steps, values, isRight);
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
 * Each kept step's 0/1 results on the examples, in one example order; '' when no answers are
 * stored, else why they cannot be used. Read in one pass, step by step, keeping the bits and the
 * first kept step's example ids only (a store of 1000 checkpoints x 5000 examples is 5M answers).
 */
function answersAtSteps(
  answers: Iterable<StoredAnswer>, steps: readonly number[], values: Float64Array, isRight: (a: StoredAnswer) => boolean,
): Uint8Array[] | string {
  const wanted = new Map(steps.map((step, k) => [step, k]));
  const right: (Uint8Array | undefined)[] = steps.map(() => undefined);
  let order: string[] | undefined;
  let any = false, k: number | undefined, bits: number[] = [], ids: string[] = [];
  const close = (): string | undefined => {
    if (k === undefined) return undefined;
    if (order === undefined) order = ids;
    else if (ids.length !== order.length || ids.some((id, i) => id !== order![i])) {
      return `the stored answers at step ${steps[k]} are to other examples than at another checkpoint (${ids.length} and ${order.length})`;
    }
    const r = Uint8Array.from(bits);
    const share = r.reduce((t, x) => t + x, 0) / r.length;
    if (Math.abs(share - values[k]) > SAME_SCORE) return `the stored answers at step ${steps[k]} give ${share}, not its stored score ${values[k]}`;
    right[k] = r;
    return undefined;
  };
  let last: number | undefined;
  for (const a of answers) {
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
    bits.push(isRight(a) ? 1 : 0);
    ids.push(a.exampleId);
  }
  const why = close();
  if (why !== undefined) return why;
  if (!any) return '';
  const missing = steps.filter((_, j) => right[j] === undefined);
  if (missing.length) return `no stored answers at ${missing.length} of its ${steps.length} checkpoints (e.g. step ${missing[0]})`;
  return right as Uint8Array[];
}
