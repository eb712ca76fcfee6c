/**
 * The bias-corrected AR(1) coefficient (effective-sample-size.ts, residualPhi) of each series'
 * residuals after the covariates are regressed out (ranked first for Spearman), as the effective-n
 * test estimates it: what analyze/calibration.ts simulates a run's null series from. Null for a
 * series that is constant or whose residuals are.
 */
import { residualPhi } from './effective-sample-size.ts';
import { prepareControls, residualsConstant, type PartialOptions } from './partial-correlation-shared.ts';
import { isConstant, toFloat64 } from './validate.ts';

export function residualAr1(series: ArrayLike<number>[], covariates: ArrayLike<number>[], opts: PartialOptions): (number | null)[] {
  const n = covariates[0]?.length ?? series[0]?.length ?? 0;
  const controls = prepareControls(covariates.map((c, i) => toFloat64(c, `covariates[${i}]`)), n, opts);
  if (typeof controls === 'string') return series.map(() => null);
  const e = new Float64Array(n);
  return series.map((raw, i) => {
    const s = toFloat64(raw, `series[${i}]`);
    if (isConstant(s)) return null;
    controls.residualiseSeries(s, e);
    if (residualsConstant(s, e)) return null;
    return residualPhi(e);
  });
}
