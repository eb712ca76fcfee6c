// "Do my generalisation results generalise?": for each run, the partial correlation across
// checkpoints between every pair of OOD test sets with the in-domain (control) score regressed
// out; p-values corrected for the number of pairs within the run (each run is one family of
// tests); then, across runs, how often each pair is significantly positive, negative or neither.
import { UserError } from '../errors.ts';
import {
  adjustPValues, blockBootstrapCI, firstDifferences, levelsOrDifferencesPairs, partialCorrelationPairs, permutationTest,
  type CorrelationMethod, type Correction, type Inference, type Representation, type Residualiser, type Tau2Estimator,
} from '../stats/index.ts';
import { metaAcrossRuns, type MetaAcrossRuns } from './pair-meta.ts';
import type { RunSeries } from './run-series.ts';

export interface AnalyzeOptions {
  control: string;
  method: CorrelationMethod;
  residualiser: Residualiser;
  /** 'effective-n' (Bartlett's effective sample size, the default) or 'naive' (every checkpoint independent, as the papers). */
  inference: Inference;
  correction: Correction;
  /** Significance level for the agreement counts (after correction). */
  alpha: number;
  /** Correlate first differences between checkpoints instead of levels. */
  differences: boolean;
  /** Block-bootstrap resamples per pair (0: none). */
  bootstrap: number;
  blockLength?: number;
  /** Order-respecting (circular-shift) permutations per pair (0: none). */
  permutations: number;
  seed: number;
  /** Restrict the OOD sets to these (default: every test set but the control). */
  testSets?: string[];
  /** Across runs: the between-run variance estimator of the per-pair meta-analysis. */
  metaEstimator: Tau2Estimator;
  /**
   * Across runs: Hartung-Knapp adjustment of the pooled effect's test and CI (default on: the plain
   * z test rejects a true null pooled effect in up to 15% of studies of 3-5 heterogeneous runs;
   * docs/analyze.md, scripts/meta-analysis-calibration.ts).
   */
  hartungKnapp: boolean;
  /** Across runs: a run attribute to meta-regress each pair's z on (e.g. model family). */
  moderator?: string;
}

export const DEFAULT_OPTIONS: Omit<AnalyzeOptions, 'control'> = {
  method: 'pearson', residualiser: 'linear', inference: 'effective-n', correction: 'holm', alpha: 0.05,
  differences: false, bootstrap: 0, permutations: 0, seed: 0,
  metaEstimator: 'REML', hartungKnapp: true,
};

export interface PairResult {
  a: string;
  b: string;
  r: number | null;
  /** Observations the test counted: the effective sample size ('effective-n'), or n ('naive'). */
  nEff: number;
  /** Degrees of freedom of the t-test: nEff - 2 - k. */
  df: number;
  p: number | null;
  p_adjusted: number | null;
  ci95: [number, number] | null;
  /** Why r is null, when it is. */
  reason?: string;
  /** 'effective-n': bias-corrected AR(1) coefficients of the two residual series. */
  phi?: [number, number];
  /** Distinct (control, a, b) score rows, when fewer than n (plateaus). */
  distinct?: number;
  /** What was correlated: the scores' levels or their first differences ('effective-n' picks per pair). */
  representation: Representation;
  bootstrap_ci95?: [number, number] | null;
  permutation_p?: number;
}

export interface RunAnalysis { run: string; n: number; control: string; pairs: PairResult[] }
export interface Agreement { a: string; b: string; positive: number; negative: number; null: number; runs: number }
export interface AnalysisResult { runs: RunAnalysis[]; agreement: Agreement[]; meta: MetaAcrossRuns }

/** The smallest number of checkpoints a linear partial correlation with one covariate can use. */
const MIN_STEPS_LINEAR = 5;
/** The spline residualiser needs more points than its basis dimension. */
const MIN_STEPS_SPLINE = 12;

/**
 * Why the runs cannot be analysed as asked (no runs; a run without the control or a named set, with
 * fewer than two OOD sets, or with too few checkpoints), or undefined when they can. Callers that
 * treat "not yet" as a normal state (a study still running, watch) ask this first.
 */
export function analysisProblem(series: readonly RunSeries[], opts: AnalyzeOptions): string | undefined {
  if (series.length === 0) return 'no runs to analyse: the input has no scores for the chosen metric';
  for (const s of series) {
    const why = runProblem(s, opts);
    if (why !== undefined) return `run "${s.run}": ${why}`;
  }
  return undefined;
}

/** The analysis, or why there is none yet (a value, not an error: see analysisProblem). */
export function analyzeOrSkip(series: readonly RunSeries[], opts: AnalyzeOptions): { analysis: AnalysisResult } | { skipped: string } {
  const skipped = analysisProblem(series, opts);
  return skipped === undefined ? { analysis: analyzeRuns(series, opts) } : { skipped };
}

export function analyzeRuns(series: readonly RunSeries[], opts: AnalyzeOptions): AnalysisResult {
  if (series.length === 0) throw new UserError(analysisProblem(series, opts)!);
  const runs = series.map((s) => analyzeRun(s, opts));
  const attributes = new Map(series.map((s) => [s.run, s.attributes]));
  return { runs, agreement: agreementAcrossRuns(runs, opts.alpha), meta: metaAcrossRuns(runs, opts, attributes) };
}

const oodNamesOf = (series: RunSeries, opts: AnalyzeOptions): string[] => (opts.testSets ?? [...series.values.keys()]).filter((t) => t !== opts.control);

/** Why one run cannot be analysed as asked, or undefined. */
export function runProblem(series: RunSeries, opts: AnalyzeOptions): string | undefined {
  const control = series.values.get(opts.control);
  if (!control) return `no scores for the control test set "${opts.control}" (it has: ${[...series.values.keys()].join(', ')})`;
  const oodNames = oodNamesOf(series, opts);
  const missing = oodNames.find((t) => !series.values.has(t));
  if (missing !== undefined) return `no scores for test set "${missing}"`;
  if (oodNames.length < 2) return `needs at least two OOD test sets besides the control "${opts.control}", has ${oodNames.length}`;
  const n = opts.differences ? Math.max(0, control.length - 1) : control.length;
  const minSteps = opts.residualiser === 'spline' ? MIN_STEPS_SPLINE : MIN_STEPS_LINEAR;
  if (n < minSteps) {
    return `${n} ${opts.differences ? 'differences between checkpoints' : 'checkpoints with every test set scored'}; a partial correlation with one covariate and the ${opts.residualiser} residualiser needs at least ${minSteps}`;
  }
  return undefined;
}

export function analyzeRun(series: RunSeries, opts: AnalyzeOptions): RunAnalysis {
  const problem = runProblem(series, opts);
  if (problem !== undefined) throw new UserError(`run "${series.run}": ${problem}`);
  const oodNames = oodNamesOf(series, opts);
  const transform = opts.differences ? (x: Float64Array) => firstDifferences(x) : (x: Float64Array) => x;
  const covariate = transform(series.values.get(opts.control)!);
  const n = covariate.length;
  const ood: Record<string, Float64Array> = {};
  for (const t of oodNames) ood[t] = transform(series.values.get(t)!);

  const statOpts = {
    method: opts.method, residualiser: opts.residualiser, inference: opts.inference,
    splineBasis: opts.residualiser === 'spline' ? splineBasisFor(covariate) : undefined,
  };
  // 'effective-n' on levels tests each pair on levels and on differences and keeps the one with the
  // larger effective sample size (stats/levels-or-differences.ts); --differences forces differences
  const results = opts.inference === 'effective-n' && !opts.differences
    ? levelsOrDifferencesPairs(ood, [covariate], statOpts)
    : partialCorrelationPairs(ood, [covariate], statOpts).map((p) => ({ ...p, representation: (opts.differences ? 'differences' : 'levels') as Representation }));
  const adjusted = adjustPValues(results.map((x) => x.result.p), opts.correction);
  const pairs: PairResult[] = results.map(({ a, b, result, representation }, i) => {
    const pair: PairResult = { a, b, r: result.r, nEff: result.nEff, df: result.df, p: result.p, p_adjusted: adjusted[i], ci95: result.ci95, representation };
    if (result.r === null) pair.reason = result.reason ?? 'undefined';
    if (result.phi) pair.phi = result.phi;
    if (result.distinct !== undefined) pair.distinct = result.distinct;
    if (opts.bootstrap > 0) {
      pair.bootstrap_ci95 = blockBootstrapCI(ood[a], ood[b], [covariate], {
        ...statOpts, resamples: opts.bootstrap, blockLength: opts.blockLength, seed: opts.seed,
      });
    }
    if (opts.permutations > 0) {
      pair.permutation_p = permutationTest(ood[a], ood[b], [covariate], { ...statOpts, permutations: opts.permutations, seed: opts.seed }).p;
    }
    return pair;
  });
  return { run: series.run, n, control: opts.control, pairs };
}

/**
 * The spline's basis dimension for one control series: mgcv's default 10, but at most half the
 * control's distinct values (and at least 3), so that a GCV fit on a plateaued run (8 distinct
 * values in 21 checkpoints) cannot spend nearly every degree of freedom the data has.
 */
export function splineBasisFor(control: Float64Array): number {
  return Math.min(DEFAULT_SPLINE_BASIS, Math.max(3, Math.floor(new Set(control).size / 2)));
}

const DEFAULT_SPLINE_BASIS = 10;

export function agreementAcrossRuns(runs: readonly RunAnalysis[], alpha: number): Agreement[] {
  const byPair = new Map<string, Agreement>();
  for (const run of runs) {
    for (const p of run.pairs) {
      const key = `${p.a}\u0000${p.b}`;
      let entry = byPair.get(key);
      if (!entry) byPair.set(key, (entry = { a: p.a, b: p.b, positive: 0, negative: 0, null: 0, runs: 0 }));
      entry.runs++;
      const significant = p.r !== null && p.p_adjusted !== null && p.p_adjusted < alpha;
      if (significant && p.r! > 0) entry.positive++;
      else if (significant && p.r! < 0) entry.negative++;
      else entry.null++;
    }
  }
  return [...byPair.values()].sort((x, y) => (x.a === y.a ? cmp(x.b, y.b) : cmp(x.a, y.a)));
}

/** One word for the agreement row: does the pair's sign generalise across runs? */
export type SignVerdict = 'positive in all' | 'negative in all' | 'sign differs' | 'positive or none' | 'negative or none' | 'none significant';

export function signVerdict(a: Agreement): SignVerdict {
  if (a.positive > 0 && a.negative > 0) return 'sign differs';
  if (a.positive === a.runs && a.runs > 0) return 'positive in all';
  if (a.negative === a.runs && a.runs > 0) return 'negative in all';
  if (a.positive > 0) return 'positive or none';
  if (a.negative > 0) return 'negative or none';
  return 'none significant';
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
