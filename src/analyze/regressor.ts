// What is regressed out of each OOD series (`--regress-on`): the control's scores (the papers'
// partial correlation "with in-domain performance controlled"), or ln(1 + step), training time.
// Why the second exists: a control scored on a fixed test set carries sampling errors that persist
// between checkpoints, which the control's correction (stats/control-residuals.ts) treats as
// independent; on such simulated runs some null pair of 28 was called "depends on the model" in
// 48-59% of studies, where with ln(1 + step), which carries no sampling noise, it was 6.0-8.0%, at
// the cost of removing every smooth trend two sets share (docs/analyze.md, "fixed test sets").
import type { RunSeries } from './run-series.ts';

export const REGRESSORS = ['score', 'log-step'] as const;
export type Regressor = (typeof REGRESSORS)[number];

/** The series regressed out of the run's OOD series, or undefined when the run has no control scores. */
export function regressorOf(series: Pick<RunSeries, 'values' | 'steps'>, opts: { control: string; regressOn: Regressor }): Float64Array | undefined {
  if (opts.regressOn === 'log-step') return Float64Array.from(series.steps, (s) => Math.log1p(s));
  return series.values.get(opts.control);
}

/** How the output names what was regressed out: `"id"` or `ln(1 + step) (training time)`. */
export function regressorLabel(opts: { control: string; regressOn: Regressor }): string {
  return opts.regressOn === 'log-step' ? 'ln(1 + step) (training time)' : `"${opts.control}"`;
}
