// What a partial correlation correlates, for a figure: the residuals of two OOD series after the
// control (or training time, --regress-on) is regressed out, with the same residualiser, ranks (Spearman) and representation
// (levels or first differences) as the analysis of that pair used.
import { firstDifferences, type Representation } from '../stats/index.ts';
import { prepareControls } from '../stats/partial-correlation-shared.ts';
import type { AnalyzeOptions } from './analysis.ts';
import { statOptions } from './pair-test-contract.ts';
import { regressorOf } from './regressor.ts';
import type { RunSeries } from './run-series.ts';

export interface PairResiduals {
  /** The checkpoint each point belongs to (for differences: the later of the two). */
  steps: number[];
  a: Float64Array;
  b: Float64Array;
}

/** Residuals of test sets `a` and `b` of one run, or undefined when the residualiser cannot fit them. */
export function pairResiduals(
  series: RunSeries, a: string, b: string, opts: Pick<AnalyzeOptions, 'control' | 'regressOn' | 'method' | 'residualiser'>,
  representation: Representation = 'levels',
): PairResiduals | undefined {
  const transform = (v: Float64Array | undefined) => (v && representation === 'differences' ? firstDifferences(v) : v);
  const pick = (name: string) => transform(series.values.get(name));
  const control = transform(regressorOf(series, opts));
  const x = pick(a);
  const y = pick(b);
  if (!control || !x || !y) return undefined;
  const n = control.length;
  const controls = prepareControls([control], n, {
    ...statOptions(control, opts),
  });
  if (typeof controls === 'string') return undefined;
  const ra = new Float64Array(n);
  const rb = new Float64Array(n);
  controls.residualiseSeries(x, ra);
  controls.residualiseSeries(y, rb);
  return { steps: representation === 'differences' ? series.steps.slice(1) : [...series.steps], a: ra, b: rb };
}
