// The ceiling on power in the realistic simulation (bench/realistic-runs.ts): the verdict an oracle
// reaches that sees each run's TRUE deviations of the tested pair (no binomial noise, no control to
// regress out, nothing estimated about the noise) and knows their exact covariance, the
// Ornstein-Uhlenbeck correlation exp(-|ln(1 + s_i) - ln(1 + s_j)| / 3) the simulation draws them
// from. Per run: r of the centred deviations, n_eff from that covariance (Dutilleul's trace formula,
// stats/uneven-spacing.ts), z = atanh(r) with variance 1 / (n_eff - 3); pooled by the same
// random-effects meta-analysis and decided by the same verdict rules as analyze (verdict.ts).
// What genstudy's default finds cannot exceed what this finds except by chance: where the oracle's
// power is low, the simulated effect carries too little information for any test.
import { clippedFisherZ } from '../src/analyze/fisher-z.ts';
import { pairVerdict, type PairVerdict } from '../src/analyze/verdict.ts';
import { pearson, randomEffectsMeta } from '../src/stats/index.ts';
import { projectCovariance, projectedEffectiveN } from '../src/stats/uneven-spacing.ts';
import { DRIFT_TAU, TESTED_PAIR, type SimulatedRun } from './realistic-runs.ts';

function ouCovariance(steps: readonly number[]): Float64Array {
  const u = steps.map((s) => Math.log1p(s));
  const n = u.length;
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s[i * n + j] = Math.exp(-Math.abs(u[i] - u[j]) / DRIFT_TAU);
  return s;
}

export function oracleVerdict(runs: readonly SimulatedRun[], alpha = 0.05, equivalenceMargin = 0.1): PairVerdict {
  const y: number[] = [], v: number[] = [];
  for (const run of runs) {
    const steps = run.series.steps;
    const projected = projectCovariance(ouCovariance(steps), [new Float64Array(steps.length).fill(1)]);
    const nEff = projectedEffectiveN(projected, projected, 2, steps.length);
    if (nEff <= 3) continue;
    const [a, b] = TESTED_PAIR.map((t) => run.deviations.get(t)!);
    const r = pearson(a, b);
    if (r === null) continue;
    y.push(clippedFisherZ(r));
    v.push(1 / (nEff - 3));
  }
  if (y.length === 0) return 'inconclusive';
  const m = randomEffectsMeta(y, v, { hartungKnapp: true });
  const pi = m.prediction_interval && ([Math.tanh(m.prediction_interval[0]), Math.tanh(m.prediction_interval[1])] as [number, number]);
  return pairVerdict({ runs: y.length, r: Math.tanh(m.estimate), p: m.p, p_adjusted: m.p, q_p: m.q_p, q_p_adjusted: m.q_p, prediction95: pi },
    { alpha, equivalenceMargin, correction: 'none', pairs: 1 }).verdict;
}
