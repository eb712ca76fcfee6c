// What a spline in a noisy control leaves in two OOD sets' residuals, as the control's noise grows:
// the mean residual cross-product of every pair of OOD sets of a realistic cell (bench/realistic-runs.ts)
// with the true in-domain progress as the control, and with the observed control plus extra noise of
// lambda times its sampling variance (SIMEX's added noise, lambda 0-2: total noise 1-3 times the
// control's own). SIMEX extrapolates this curve from total noise 1-3 back to 0; on a learning curve's
// plateau the curve is steep below 1 and flat above it, which is why SIMEX leaves part of the echo
// (docs/analyze.md, "What SIMEX leaves of the control's echo"). `npm run bench -- simex-leftover`.
//   SIMEX_LEFTOVER_STUDIES  studies (default 20); SIMEX_LEFTOVER_CELL  a cell as JSON (default: even convex, n 1000, 8 sets)
import { prepareControls } from '../src/stats/partial-correlation-shared.ts';
import { createRandom } from '../src/stats/random.ts';
import { CONTROL, simulateStudy, type StudySpec } from './realistic-runs.ts';

const DRAWS = 20;
const LAMBDAS = [0, 0.5, 1, 1.5, 2];

/** The mean over the pairs of the series' residual cross-products on `control` (spline, basis 10). */
function meanCrossProduct(control: Float64Array, series: Float64Array[]): number | undefined {
  const fitted = prepareControls([control], control.length, { method: 'pearson', residualiser: 'spline', splineBasis: 10 });
  if (typeof fitted === 'string') return undefined;
  const residuals = series.map((s) => {
    const e = new Float64Array(s.length);
    fitted.residualiseSeries(s, e);
    const mean = e.reduce((a, b) => a + b, 0) / e.length;
    return e.map((x) => x - mean);
  });
  let sum = 0, pairs = 0;
  for (let a = 0; a < residuals.length; a++) {
    for (let b = a + 1; b < residuals.length; b++) {
      for (let t = 0; t < residuals[a].length; t++) sum += residuals[a][t] * residuals[b][t];
      pairs++;
    }
  }
  return sum / pairs;
}

export async function benchSimexLeftover(): Promise<Record<string, number | string>> {
  const studies = Number(process.env.SIMEX_LEFTOVER_STUDIES ?? 20);
  const spec: StudySpec = process.env.SIMEX_LEFTOVER_CELL ? JSON.parse(process.env.SIMEX_LEFTOVER_CELL)
    : { schedule: 'even', shape: 'convex', n: 1000, idNoisy: true, models: 5, oodSets: 8, truth: 'null' };
  const random = createRandom(5);
  const sums = { truth: 0, noisy: LAMBDAS.map(() => 0) };
  let runs = 0;
  for (let k = 0; k < studies; k++) {
    for (const run of simulateStudy(spec, 1000 + k)) {
      const ood = [...run.series.values].filter(([name]) => name !== CONTROL).map(([, v]) => v);
      const observed = run.series.values.get(CONTROL)!, variance = run.series.samplingVariance!.get(CONTROL)!;
      const truth = meanCrossProduct(run.progress, ood);
      if (truth === undefined) continue;
      const noisy = LAMBDAS.map((lambda) => {
        let sum = 0;
        for (let d = 0; d < DRAWS; d++) {
          const c = observed.map((v, i) => v + Math.sqrt(lambda * variance[i]) * random.normal());
          sum += meanCrossProduct(c, ood) ?? NaN;
        }
        return sum / DRAWS;
      });
      if (noisy.some((x) => !Number.isFinite(x))) continue;
      sums.truth += truth;
      noisy.forEach((x, i) => { sums.noisy[i] += x; });
      runs++;
    }
  }
  const out: Record<string, number | string> = { cell: JSON.stringify(spec), runs };
  out['cross_product_e4_true_control'] = (1e4 * sums.truth) / runs;
  LAMBDAS.forEach((lambda, i) => { out[`cross_product_e4_noise_x${1 + lambda}`] = (1e4 * sums.noisy[i]) / runs; });
  return out;
}
