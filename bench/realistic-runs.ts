// Simulated studies shaped like real fine-tuning runs, for the error rates of analyze's verdicts
// where the tidy AR(1) tables (bench/ar1-score-tables.ts) are too kind. One study is k runs
// (models), each with an in-domain control `id` and m OOD sets, scored at the checkpoints of a
// real schedule (bench/realistic-schedules.ts). What each choice simulates, and why:
//   - ID progress P(step): a saturating learning curve in log-step, from 0.5 to a per-run
//     asymptote in 0.75-0.9 at a per-run rate. Fine-tuning gains most of its accuracy early, so on
//     an evenly spaced schedule most checkpoints sit on the flat end, where the ID score's own
//     sampling noise is as large as its true movement: regressing on it then removes little.
//   - each OOD set follows ID progress through a monotone map g_j (per run: each model transfers
//     differently): `linear` a + b u, `convex` a + b u^q (q in 2..4: OOD gains arrive late), or
//     `sigmoid` a + b / (1 + exp(-(P - c) / 0.02)) (a sharp emergence at an ID level c), with
//     u = (P - 0.5) / 0.4 the normalised progress. Every OOD set sharing P is what makes any
//     leftover of P in the residuals look like a relation between OOD sets: a straight-line
//     regression cannot remove a curved g, nor all of P when the control it regresses on is noisy.
//   - plus a smooth deviation d_j: an Ornstein-Uhlenbeck process in ln(1 + step) (time constant 3,
//     the run spans about 10) with sd 0.01-0.02: slow drifts of one OOD set that checkpoints close
//     in log-step share. Independent between OOD sets under the null; for the tested pair (ood-a,
//     ood-b) they correlate 0.5 in every run (`common`) or +0.6 / -0.6 in alternate runs (`by-model`).
//   - measurement: every OOD score is Binomial(n, true) / n, an accuracy over n examples
//     (n 250, 1000, 5000); the control is the same (`noisy`) or its true progress (`exact`, what a
//     perfect ID measurement would give). Fresh draws at every checkpoint by default: the worst case
//     for the control's echo. A real test set is the same examples at every checkpoint, and a
//     model's answers to most of them persist between checkpoints: `persistence` simulates that
//     (fixedTestSet below), with the same Binomial marginals and errors that checkpoints share. Each set's sampling variance value (1 - value) / n is
//     attached as `samplingVariance` (0 for an exact control), the information a fix can use.
// Seeded: the same spec and seed give the same study.
import type { RunSeries } from '../src/analyze/run-series.ts';
import { normalQuantile } from '../src/stats/distributions.ts';
import { correlatedOuInto, createRandom, ouInto, shareCovariance, type Random } from '../src/stats/index.ts';
import { binomialSample } from './binomial-sample.ts';
import { scheduleSteps, type ScheduleName } from './realistic-schedules.ts';

export const SHAPES = ['linear', 'convex', 'sigmoid'] as const;
export type Shape = (typeof SHAPES)[number];
export const TRUTHS = ['null', 'common', 'by-model'] as const;
export type Truth = (typeof TRUTHS)[number];

export interface StudySpec {
  schedule: ScheduleName;
  shape: Shape;
  /** Examples per test set: each score is a count out of n. */
  n: number;
  /** Whether the control is measured with the same binomial noise (true) or is the true progress. */
  idNoisy: boolean;
  models: number;
  oodSets: number;
  truth: Truth;
  /**
   * A fixed test set's persistence: the correlation, across checkpoints, of each example's latent
   * difficulty (absent or 0: every checkpoint's score an independent Binomial draw).
   */
  persistence?: number;
  /**
   * The control's per-example results are known (genstudy's store, lm-eval's logged samples): its
   * errors' covariance across checkpoints is estimated from them and given to the analysis
   * (RunSeries.samplingCovariance). Scores are then drawn example by example also when fresh.
   */
  examples?: boolean;
}

export const CONTROL = 'id';
export const TESTED_PAIR: [string, string] = ['ood-a', 'ood-b'];
export const COMMON_R = 0.5;
export const BY_MODEL_R = 0.6;
const START = 0.5;
const SPAN = 0.4;
export const DRIFT_TAU = 3;
const SIGMOID_WIDTH = 0.02;

export const oodName = (j: number): string => `ood-${String.fromCharCode(97 + j)}`;

/** One simulated run: the series analyze sees, and the truth behind it. */
export interface SimulatedRun {
  series: RunSeries;
  /** True ID progress at each checkpoint. */
  progress: Float64Array;
  /** Each OOD set's smooth deviation d_j at each checkpoint. */
  deviations: Map<string, Float64Array>;
  /** Each OOD set's deviation sd (d_j is that times a unit Ornstein-Uhlenbeck process). */
  deviationSd: Map<string, number>;
  /** Each OOD set's true score g_j(P) + d_j, the binomial mean its observed score is drawn around. */
  trueScores: Map<string, Float64Array>;
  /** The correlation of the tested pair's deviations in this run (0 under the null). */
  rho: number;
}

const between = (random: Random, lo: number, hi: number): number => lo + (hi - lo) * random.uniform();

function progressCurve(steps: readonly number[], random: Random): Float64Array {
  const asymptote = between(random, 0.75, 0.9), rate = between(random, 2.5, 5), scale = between(random, 20, 200);
  const end = Math.log1p(steps[steps.length - 1] / scale);
  return Float64Array.from(steps, (s) => START + (asymptote - START) * (1 - Math.exp((-rate * Math.log1p(s / scale)) / end)));
}

/** One OOD set's map from ID progress to its true score, drawn for one run. */
function oodMap(shape: Shape, random: Random): (p: number) => number {
  const a = between(random, 0.3, 0.5), b = between(random, 0.1, 0.3);
  const u = (p: number) => Math.max(0, (p - START) / SPAN);
  switch (shape) {
    case 'linear': return (p) => a + b * u(p);
    case 'convex': { const q = between(random, 2, 4); return (p) => a + b * u(p) ** q; }
    case 'sigmoid': { const c = between(random, 0.6, 0.72); return (p) => a + b / (1 + Math.exp(-(p - c) / SIGMOID_WIDTH)); }
  }
}

function pairRho(truth: Truth, runIndex: number): number {
  if (truth === 'common') return COMMON_R;
  if (truth === 'by-model') return runIndex % 2 === 0 ? BY_MODEL_R : -BY_MODEL_R;
  return 0;
}

function deviationsOf(
  spec: StudySpec, logSteps: Float64Array, rho: number, random: Random,
): { deviations: Map<string, Float64Array>; sds: Map<string, number> } {
  const out = new Map<string, Float64Array>(), sds = new Map<string, number>();
  for (let j = 0; j < spec.oodSets; j++) out.set(oodName(j), new Float64Array(logSteps.length));
  const [a, b] = TESTED_PAIR.map((t) => out.get(t)!);
  if (rho === 0) { ouInto(a, logSteps, DRIFT_TAU, random); ouInto(b, logSteps, DRIFT_TAU, random); }
  else correlatedOuInto(a, b, logSteps, DRIFT_TAU, rho, random);
  for (let j = 2; j < spec.oodSets; j++) ouInto(out.get(oodName(j))!, logSteps, DRIFT_TAU, random);
  for (const [name, d] of out) {
    const sd = between(random, 0.01, 0.02);
    sds.set(name, sd);
    for (let t = 0; t < d.length; t++) d[t] *= sd;
  }
  return { deviations: out, sds };
}

const observed = (truth: number, n: number, random: Random): number => binomialSample(n, Math.min(1, Math.max(0, truth)), random) / n;

/**
 * One test set's scores at every checkpoint over the same n examples: example i is answered right
 * at checkpoint t when sqrt(rho) z_i + sqrt(1 - rho) e_it < probit(m_t), z_i its fixed difficulty
 * and e_it fresh at each checkpoint. Each score is then Binomial(n, m_t) / n, as with fresh draws,
 * but the errors of successive checkpoints share the examples: at rho 0.9 and accuracy 0.5 a model
 * whose accuracy does not move keeps 86% of its answers (1 - arccos(rho) / pi), and the score's
 * error from one checkpoint to the next is much smaller than m(1 - m)/n says.
 */
function fixedTestSet(means: Float64Array, n: number, rho: number, random: Random): { scores: Float64Array; right: Uint8Array[] } {
  const z = Float64Array.from({ length: n }, () => Math.sqrt(rho) * random.normal());
  const fresh = Math.sqrt(1 - rho);
  const right: Uint8Array[] = [];
  const scores = means.map((m) => {
    const threshold = m <= 0 ? -Infinity : m >= 1 ? Infinity : normalQuantile(m);
    const r = new Uint8Array(n);
    let count = 0;
    for (let i = 0; i < n; i++) if (z[i] + fresh * random.normal() < threshold) { r[i] = 1; count++; }
    right.push(r);
    return count / n;
  });
  return { scores, right };
}

function measure(means: Float64Array, spec: StudySpec, random: Random): { scores: Float64Array; right?: Uint8Array[] } {
  if (spec.persistence || spec.examples) return fixedTestSet(means, spec.n, spec.persistence ?? 0, random);
  return { scores: means.map((m) => observed(m, spec.n, random)) };
}

export function simulateRun(spec: StudySpec, runIndex: number, random: Random): SimulatedRun {
  const steps = scheduleSteps(spec.schedule, random);
  const progress = progressCurve(steps, random);
  const rho = pairRho(spec.truth, runIndex);
  const { deviations, sds: deviationSd } = deviationsOf(spec, Float64Array.from(steps, (s) => Math.log1p(s)), rho, random);
  const values = new Map<string, Float64Array>();
  const samplingVariance = new Map<string, Float64Array>();
  const trueScores = new Map<string, Float64Array>();
  const measuredId = spec.idNoisy ? measure(progress, spec, random) : undefined;
  const id = measuredId?.scores ?? Float64Array.from(progress);
  values.set(CONTROL, id);
  samplingVariance.set(CONTROL, spec.idNoisy ? id.map((v) => (v * (1 - v)) / spec.n) : new Float64Array(id.length));
  for (const [name, d] of deviations) {
    const g = oodMap(spec.shape, random);
    const mean = progress.map((p, t) => Math.min(1, Math.max(0, g(p) + d[t])));
    trueScores.set(name, mean);
    const v = measure(mean, spec, random).scores;
    values.set(name, v);
    samplingVariance.set(name, v.map((x) => (x * (1 - x)) / spec.n));
  }
  const base: RunSeries = { run: `model-${runIndex}`, steps, values, attributes: { model: `model-${runIndex}` }, incompleteSteps: [] };
  // RunSeries is gaining samplingVariance (each checkpoint's p(1 - p)/n) for the binomial-noise fix;
  // attached here already so the fixed analysis reads it from these same studies.
  const series: RunSeries = Object.assign(base, { samplingVariance });
  if (spec.examples && measuredId?.right) series.samplingCovariance = new Map([[CONTROL, shareCovariance(measuredId.right)]]);
  return { series, progress, deviations, deviationSd, trueScores, rho };
}

/** One study: `spec.models` runs drawn from one seeded stream. */
export function simulateStudy(spec: StudySpec, seed: number): SimulatedRun[] {
  const random = createRandom(seed);
  return Array.from({ length: spec.models }, (_, i) => simulateRun(spec, i, random));
}

/**
 * The run as an exact measurement of in-domain progress would give it: the control replaced by the
 * true progress, with no sampling variance or covariance; the OOD scores unchanged. What the
 * default reaches when nothing of the control's noise is left to correct (REALISTIC_TRUE_CONTROL).
 */
export function withTrueControl(run: SimulatedRun): RunSeries {
  const values = new Map(run.series.values).set(CONTROL, run.progress);
  const samplingVariance = new Map(run.series.samplingVariance).set(CONTROL, new Float64Array(run.progress.length));
  const { samplingCovariance: _dropped, ...rest } = run.series;
  return { ...rest, values, samplingVariance };
}

/** The run with its control's sampling noise unknown (no variance, no covariance): what no correction gives. */
export function withoutControlNoise(run: SimulatedRun): RunSeries {
  const samplingVariance = new Map(run.series.samplingVariance);
  samplingVariance.delete(CONTROL);
  const { samplingCovariance: _dropped, ...rest } = run.series;
  return { ...rest, samplingVariance };
}
