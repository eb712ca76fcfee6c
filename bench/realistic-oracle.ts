// The ceilings on power in the realistic simulation (bench/realistic-runs.ts), two oracles that
// know what no test can and use the same random-effects meta-analysis and verdict rules as analyze
// (verdict.ts). Per run: r of the centred series, n_eff from their exact covariances (Dutilleul's
// trace formula, stats/uneven-spacing.ts), z = atanh(r) with variance 1 / (n_eff - 3).
//   - `oracleVerdict` sees each run's TRUE deviations of the tested pair (no binomial noise, no
//     control to regress out) and their Ornstein-Uhlenbeck correlation
//     exp(-|ln(1 + s_i) - ln(1 + s_j)| / 3) from the simulation: what the drifts themselves hold.
//   - `measuredOracleVerdict` sees the deviations as the scores measure them: each observed OOD
//     score minus its true curve g_j(P), so d_j plus the binomial noise, with their exact covariance
//     sd_j^2 OU + the measurement's (diag(m_t (1 - m_t) / n), m_t the true score, for fresh draws;
//     with the errors checkpoints share on a fixed test set). It knows P and every g_j exactly, so
//     nothing is lost to the control; what it lacks is only what the test sets' size takes away.
// What genstudy's default finds cannot exceed the second except by chance: where its power is low,
// the scores carry too little information about the simulated effect for any test.
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import { clippedFisherZ } from '../src/analyze/fisher-z.ts';
import { pairVerdict, type PairVerdict } from '../src/analyze/verdict.ts';
import { normalQuantile } from '../src/stats/distributions.ts';
import { pearson, randomEffectsMeta } from '../src/stats/index.ts';
import { projectCovariance, projectedEffectiveN } from '../src/stats/uneven-spacing.ts';
import { DRIFT_TAU, TESTED_PAIR, type SimulatedRun, type StudySpec } from './realistic-runs.ts';

/** sd^2 times the drifts' OU correlation in log-step, plus the measurement's covariance `noise` (n x n). */
function covariance(steps: readonly number[], sd: number, noise?: Float64Array): Float64Array {
  const u = steps.map((s) => Math.log1p(s));
  const n = u.length;
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s[i * n + j] = sd * sd * Math.exp(-Math.abs(u[i] - u[j]) / DRIFT_TAU);
  if (noise) for (let i = 0; i < n * n; i++) s[i] += noise[i];
  return s;
}

/** P(X < h, Y < k) for standard normals of correlation rho: Simpson's rule over x < h of phi(x) Phi((k - rho x) / sqrt(1 - rho^2)). */
function bivariateNormalCdf(h: number, k: number, rho: number): number {
  const lo = -8, hi = Math.min(h, 8), steps = 200;
  if (hi <= lo) return 0;
  const dx = (hi - lo) / steps, s = Math.sqrt(1 - rho * rho);
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const x = lo + i * dx, w = i === 0 || i === steps ? 1 : i % 2 ? 4 : 2;
    sum += w * Math.exp(-0.5 * x * x) * normalCdf((k - rho * x) / s, 0, 1);
  }
  return (sum * dx) / 3 / Math.sqrt(2 * Math.PI);
}

/**
 * The covariance of a score's errors over the checkpoints (bench/realistic-runs.ts's measurement):
 * m_t (1 - m_t) / n on the diagonal; between checkpoints 0 for fresh draws, and for a fixed test set
 * (Phi2(probit m_t, probit m_s; rho) - m_t m_s) / n, the chance one example is right at both.
 */
export function measurementCovariance(means: Float64Array, n: number, persistence: number): Float64Array {
  const c = means.length;
  const out = new Float64Array(c * c);
  const probit = Array.from(means, (m) => (m <= 0 ? -Infinity : m >= 1 ? Infinity : normalQuantile(m)));
  for (let t = 0; t < c; t++) {
    out[t * c + t] = (means[t] * (1 - means[t])) / n;
    if (!persistence) continue;
    for (let u = 0; u < t; u++) {
      const v = (bivariateNormalCdf(probit[t], probit[u], persistence) - means[t] * means[u]) / n;
      out[t * c + u] = v;
      out[u * c + t] = v;
    }
  }
  return out;
}

interface OracleSeries { a: Float64Array; b: Float64Array; covA: Float64Array; covB: Float64Array }

function pooledVerdict(runs: readonly SimulatedRun[], seriesOf: (run: SimulatedRun) => OracleSeries, alpha: number, margin: number): PairVerdict {
  const y: number[] = [], v: number[] = [];
  for (const run of runs) {
    const n = run.series.steps.length;
    const ones = [new Float64Array(n).fill(1)];
    const { a, b, covA, covB } = seriesOf(run);
    const nEff = projectedEffectiveN(projectCovariance(covA, ones), projectCovariance(covB, ones), 2, n);
    if (nEff <= 3) continue;
    const r = pearson(a, b);
    if (r === null) continue;
    y.push(clippedFisherZ(r));
    v.push(1 / (nEff - 3));
  }
  if (y.length === 0) return 'inconclusive';
  const m = randomEffectsMeta(y, v, { hartungKnapp: true });
  const pi = m.prediction_interval && ([Math.tanh(m.prediction_interval[0]), Math.tanh(m.prediction_interval[1])] as [number, number]);
  return pairVerdict({ runs: y.length, r: Math.tanh(m.estimate), p: m.p, p_adjusted: m.p, q_p: m.q_p, q_p_adjusted: m.q_p, prediction95: pi },
    { alpha, equivalenceMargin: margin, correction: 'none', pairs: 1 }).verdict;
}

/** The verdict from the tested pair's true deviations (a correlation is scale-free: unit OU covariances). */
export function oracleVerdict(runs: readonly SimulatedRun[], alpha = 0.05, equivalenceMargin = 0.1): PairVerdict {
  return pooledVerdict(runs, (run) => {
    const cov = covariance(run.series.steps, 1);
    const [a, b] = TESTED_PAIR.map((t) => run.deviations.get(t)!);
    return { a, b, covA: cov, covB: cov };
  }, alpha, equivalenceMargin);
}

/** The verdict from the tested pair's deviations as measured: observed score minus the true curve g_j(P). */
export function measuredOracleVerdict(runs: readonly SimulatedRun[], spec: StudySpec, alpha = 0.05, equivalenceMargin = 0.1): PairVerdict {
  return pooledVerdict(runs, (run) => {
    const [[a, covA], [b, covB]] = TESTED_PAIR.map((t) => {
      const observed = run.series.values.get(t)!, truth = run.trueScores.get(t)!, d = run.deviations.get(t)!;
      const measured = observed.map((x, i) => x - (truth[i] - d[i]));
      const noise = measurementCovariance(truth, spec.n, spec.persistence ?? 0);
      return [measured, covariance(run.series.steps, run.deviationSd.get(t)!, noise)] as const;
    });
    return { a, b, covA, covB };
  }, alpha, equivalenceMargin);
}
