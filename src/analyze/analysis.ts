// "Do my generalisation results generalise?": for each run, the partial correlation across
// checkpoints between every pair of OOD test sets with the in-domain (control) score regressed
// out, tested with the inference the options name (by default the effective sample size of each
// residual series' drift-plus-white-noise model, on levels or differences per pair, with the
// control's sampling noise corrected: stats/modelled-pair-tests.ts); p-values corrected for the
// number of pairs within the run (each run is one family of tests), each flagged when it is
// unstable (stability.ts); then, across runs, per pair the meta-analysis and its one verdict
// (verdict.ts) counted by the headline, and the papers' sign counts; per run, the test's
// calibration on simulated series like the run's; and how robust each verdict is to the analysis choices.
// A run with too few checkpoints is left out with its reason rather than stopping the analysis: one
// short run (a model still training, a truncated log) should not hide what the others show.
import { UserError } from '../errors.ts';
import { adjustPValues, blockBootstrap, firstDifferences, NoiseFitCache, permutationTest, spacingOf } from '../stats/index.ts';
import { agreementAcrossRuns } from './agreement.ts';
import { calibrateRun } from './calibration.ts';
import { DEFAULT_OPTIONS as DEFAULTS, type AnalysisOptions, type AnalyzeOptions } from './options.ts';
import { MIN_STEPS, residualiserFor, type PairTestContext, type SamplingNoise, type TestedPair } from './pair-test-contract.ts';
import { modelsGaps, testPairs } from './pair-tests.ts';
import { metaAcrossRuns, type MetaAcrossRuns } from './pair-meta.ts';
import { plateausOf } from './plateaus.ts';
import { markFragile, ROBUSTNESS_CHOICES, robustnessOf, type Robustness, type RunData } from './robustness.ts';
import type { RunSeries } from './run-series.ts';
import { runStability } from './stability.ts';
import { regressorOf } from './regressor.ts';
import { headlineOf, type Headline } from './headline.ts';
import type { Agreement, LeftOutRun, PairResult, RunAnalysis, RunControlNoise, RunSpacing } from './run-result.ts';
import { knownNamesText } from '../closest-name.ts';

export { agreementAcrossRuns, signVerdict, type SignVerdict } from './agreement.ts';
export { PAIR_VERDICTS, type PairVerdict } from './verdict.ts';
export type { Headline } from './headline.ts';
export { splineBasisFor } from './pair-test-contract.ts';
export type { Agreement, LeftOutRun, PairResult, RunAnalysis, RunControlNoise, RunSpacing } from './run-result.ts';

export type { AnalyzeOptions } from './options.ts';

/** What a caller gives: the control, and any options (the others take their defaults). */
export type AnalyzeInput = Partial<AnalysisOptions> & { control: string };

export const DEFAULT_OPTIONS: AnalysisOptions = DEFAULTS;

export interface AnalysisResult {
  /** The answer: the four verdicts counted, in the sentence every output shows (verdict.ts). */
  headline: Headline;
  runs: RunAnalysis[];
  /** Runs left out with too few checkpoints (minCheckpoints, or the residualiser's minimum), with the reason. */
  left_out: LeftOutRun[];
  /** The papers' view: significant signs counted per pair (agreement.ts). */
  agreement: Agreement[];
  /** Per pair, the random-effects meta-analysis of its runs' Fisher z (pair-meta.ts). */
  meta: MetaAcrossRuns;
  /** "Holds under k of m analysis choices" per pair (absent with robustness off). */
  robustness?: Robustness;
}


/**
 * Why the runs cannot be analysed as asked (no runs; a run without the control or a named set, or
 * with fewer than two OOD sets; every run with too few checkpoints), or undefined when they can.
 * Callers that treat "not yet" as a normal state (a study still running, watch) ask this first.
 */
export function analysisProblem(series: readonly RunSeries[], opts: AnalyzeOptions): string | undefined {
  if (series.length === 0) return 'no runs to analyse: the input has no scores for the chosen metric';
  for (const s of series) {
    const why = setsProblem(s, opts);
    if (why !== undefined) return `run "${s.run}": ${why}`;
  }
  const short = series.map((s) => ({ run: s.run, why: tooFewCheckpoints(s, opts) }));
  if (short.every((s) => s.why !== undefined)) {
    const listed = short.slice(0, 3).map((s) => `run "${s.run}": ${s.why}`).join('; ');
    return series.length === 1 ? listed : `no run has enough checkpoints: ${listed}${series.length > 3 ? `; and ${series.length - 3} more` : ''}`;
  }
  return undefined;
}

/** The analysis, or why there is none yet (a value, not an error: see analysisProblem). */
export function analyzeOrSkip(series: readonly RunSeries[], opts: AnalyzeInput): { analysis: AnalysisResult } | { skipped: string } {
  const skipped = analysisProblem(series, withDefaults(opts));
  return skipped === undefined ? { analysis: analyzeRuns(series, opts) } : { skipped };
}

/** Options a caller left out (a library caller may pass only some) take their declared defaults. */
const withDefaults = (opts: AnalyzeInput): AnalyzeOptions =>
  ({ ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as AnalyzeOptions);

/**
 * Called after each run's analysis, the run's own and each robustness choice's: `done` of `total`
 * (runs x (1 + robustness choices)), so a caller can show progress on a long analysis.
 */
export type AnalysisProgress = (done: number, total: number) => void;

export function analyzeRuns(series: readonly RunSeries[], options: AnalyzeInput, progress?: AnalysisProgress): AnalysisResult {
  const opts = withDefaults(options);
  const problem = analysisProblem(series, opts);
  if (problem !== undefined) throw new UserError(problem);
  const leftOut: LeftOutRun[] = [];
  const kept = series.filter((s) => {
    const reason = tooFewCheckpoints(s, opts);
    if (reason !== undefined) leftOut.push({ run: s.run, reason });
    return reason === undefined;
  });
  const data = kept.map((s) => runData(s, opts));
  const total = data.length * (1 + (opts.robustness ? ROBUSTNESS_CHOICES : 0));
  let done = 0;
  const tick = () => progress?.(++done, total);
  const runs = data.map((d) => { const r = analyzeRunData(d, opts, runContext()); tick(); return r; });
  const agreement = agreementAcrossRuns(runs, opts.alpha);
  const attributes = new Map(kept.map((s) => [s.run, s.attributes]));
  const meta = metaAcrossRuns(runs, opts, attributes);
  // robustness before the headline: the headline says how robust the verdicts it names are
  const robustness = opts.robustness ? robustnessOf(data, meta, opts, tick) : undefined;
  if (robustness) markFragile(meta, robustness);
  const result: AnalysisResult = {
    headline: headlineOf({ runs, meta, robustness, left_out: leftOut }, opts), runs, left_out: leftOut, agreement, meta,
  };
  if (robustness) result.robustness = robustness;
  return result;
}

/** The result with no run analysed (a report whose store has none yet). */
export function emptyAnalysis(options: AnalyzeInput): AnalysisResult {
  const opts = withDefaults(options);
  const meta = metaAcrossRuns([], opts);
  return { headline: headlineOf({ runs: [], meta }, opts), runs: [], left_out: [], agreement: agreementAcrossRuns([], opts.alpha), meta };
}

export function analyzeRun(series: RunSeries, options: AnalyzeInput): RunAnalysis {
  const opts = withDefaults(options);
  return analyzeRunData(runData(series, opts), opts, runContext());
}

/**
 * What one run's analysis shares: its test and its calibration fit the run's own series alike, so
 * the calibration's are served from the test's, and its simulated series share the fitter (a cache
 * per run, since no two runs share a series; the robustness table keeps its own per run and
 * method/residualiser: robustness.ts).
 */
const runContext = (): PairTestContext => ({ fits: new NoiseFitCache() });

const oodNamesOf = (series: RunSeries, opts: AnalyzeOptions): string[] =>
  (opts.testSets ?? [...series.values.keys()]).filter((t) => t !== opts.control);

/** Why one run cannot be analysed as asked (its test sets, or too few checkpoints), or undefined. */
export function runProblem(series: RunSeries, opts: AnalyzeOptions): string | undefined {
  return setsProblem(series, opts) ?? tooFewCheckpoints(series, opts);
}

/** Why the run's test sets do not fit the options (an error whatever the other runs), or undefined. */
function setsProblem(series: RunSeries, opts: AnalyzeOptions): string | undefined {
  if (!series.values.has(opts.control)) {
    return `no scores for the control test set "${opts.control}" ${knownNamesText(opts.control, [...series.values.keys()])}`;
  }
  const oodNames = oodNamesOf(series, opts);
  const missing = oodNames.find((t) => !series.values.has(t));
  if (missing !== undefined) return `no scores for test set "${missing}"`;
  if (oodNames.length < 2) return `needs at least two OOD test sets besides the control "${opts.control}", has ${oodNames.length}`;
  const pairs = (oodNames.length * (oodNames.length - 1)) / 2;
  if (pairs > opts.maxPairs) {
    return `its ${oodNames.length} OOD test sets make ${pairs.toLocaleString('en')} pairs, more than --max-pairs ` +
      `${opts.maxPairs.toLocaleString('en')}: name the sets to compare with --test-set, or raise --max-pairs`;
  }
  return undefined;
}

/** Why the run has too few checkpoints to be analysed (it is left out, the others analysed), or undefined. */
export function tooFewCheckpoints(series: RunSeries, opts: AnalyzeOptions): string | undefined {
  const checkpoints = series.values.get(opts.control)?.length ?? 0;
  const differences = opts.representation === 'differences';
  const n = differences ? Math.max(0, checkpoints - 1) : checkpoints;
  // auto fits the line where the spline cannot be fitted, so the line's minimum is its minimum
  const residualiser = opts.residualiser === 'spline' ? 'spline' : 'linear';
  const minSteps = MIN_STEPS[residualiser];
  if (n < minSteps) {
    return `${n} ${differences ? 'differences between checkpoints' : 'checkpoints with every test set scored'}; ` +
      `a partial correlation with one covariate and the ${residualiser} residualiser needs at least ${minSteps}`;
  }
  if (opts.minCheckpoints !== undefined && checkpoints < opts.minCheckpoints) {
    return `${checkpoints} checkpoints with every test set scored, fewer than --min-checkpoints ${opts.minCheckpoints}`;
  }
  return undefined;
}

/** The run's control and OOD series (levels), checked against the options. */
function runData(series: RunSeries, opts: AnalyzeOptions): RunData {
  const problem = runProblem(series, opts);
  if (problem !== undefined) throw new UserError(`run "${series.run}": ${problem}`);
  const ood: Record<string, Float64Array> = {};
  for (const t of oodNamesOf(series, opts)) ood[t] = series.values.get(t)!;
  const variance = series.samplingVariance;
  const noise: SamplingNoise = {
    control: opts.regressOn === 'score' ? variance?.get(opts.control) : undefined,
    controlCovariance: opts.regressOn === 'score' ? series.samplingCovariance?.get(opts.control) : undefined,
    series: Object.fromEntries(Object.keys(ood).map((t) => [t, variance?.get(t)])),
  };
  return { run: series.run, steps: series.steps, control: regressorOf(series, opts)!, ood, noise };
}

function analyzeRunData(data: RunData, opts: AnalyzeOptions, context: PairTestContext): RunAnalysis {
  const { control, ood } = data;
  const differences = opts.representation === 'differences';
  const results = testPairs(ood, control, opts, data.steps, data.noise, context);
  const adjusted = adjustPValues(results.map((x) => x.result.p), opts.correction);
  // the bootstrap and permutation checks correlate what --representation names (auto: levels)
  const transform = differences ? (x: Float64Array) => firstDifferences(x) : (x: Float64Array) => x;
  const covariate = transform(control);
  const statOpts = { method: opts.method, residualiser: residualiserFor(opts.residualiser, covariate.length), splineBasis: opts.splineBasis };
  const stability = runStability({ control, ood, steps: data.steps, controlName: opts.control }, opts);
  const pairs: PairResult[] = results.map(({ a, b, result, representation, reliability, disattenuated, simex }, i) => {
    const pair: PairResult = { a, b, r: result.r, n_eff: result.n_eff, df: result.df, p: result.p, p_adjusted: adjusted[i], ci95: result.ci95,
      representation };
    if (disattenuated !== undefined) pair.r_disattenuated = disattenuated;
    if (simex) Object.assign(pair, { r_simex: simex.r, r_uncorrected: simex.uncorrected });
    if (reliability) pair.reliability = reliability;
    if (result.r === null) pair.reason = result.reason ?? 'undefined';
    if (result.phi) pair.phi = result.phi;
    if (result.distinct !== undefined) pair.distinct = result.distinct;
    const unstable = stability(a, b, { ...result, representation });
    if (unstable !== undefined) pair.unstable = unstable;
    if (opts.bootstrap > 0) {
      const boot = blockBootstrap(transform(ood[a]), transform(ood[b]), [covariate], {
        ...statOpts, resamples: opts.bootstrap, blockLength: opts.blockLength, seed: opts.seed,
      });
      pair.bootstrap_ci95 = boot.ci95;
      if (boot.reason !== undefined) pair.bootstrap_reason = boot.reason;
    }
    if (opts.permutations > 0) {
      pair.permutation_p = permutationTest(transform(ood[a]), transform(ood[b]), [covariate],
        { ...statOpts, permutations: opts.permutations, seed: opts.seed }).p;
    }
    return pair;
  });
  const plateaus = plateausOf(data.run, control, Object.values(ood));
  const calibration = calibrateRun(control, Object.values(ood), opts, data.steps, data.noise, context);
  const controlNoise = opts.regressOn === 'score' ? controlNoiseOf(results[0], data.noise ?? {}, control) : undefined;
  const spacing = spacingOfRun(data.steps, opts);
  return {
    run: data.run, n: control.length - (differences ? 1 : 0), control: opts.control, distinct: plateaus.distinct,
    ...(plateaus.warning ? { warning: plateaus.warning } : {}), ...(spacing ? { spacing } : {}), ...(calibration ? { calibration } : {}),
    ...(controlNoise ? { control_noise: controlNoise } : {}), pairs,
  };
}

/**
 * What the run's test did about the control's sampling noise: corrected it (and how), or, when the
 * control looks like a proportion and its noise is not known, a warning saying how to give it.
 */
function controlNoiseOf(first: TestedPair | undefined, noise: SamplingNoise, control: Float64Array): RunControlNoise | undefined {
  if (noise.control) {
    return {
      correction: first?.correction ?? 'none', ...(first?.controlReliability !== undefined ? { reliability: first.controlReliability } : {}),
      ...(first?.uncorrected ? { uncorrected: first.uncorrected } : {}), ...(noise.controlCovariance ? { error_covariance: true as const } : {}),
    };
  }
  if (control.every((v) => v >= 0 && v <= 1)) {
    return {
      correction: 'none', warning: "the control's sampling variance is not known: if its scores are proportions over a finite test set " +
        'the partial correlations may be biased upward by its noise; give a column n or stderr, or --sample-size N',
    };
  }
  return undefined;
}

/** The run's spacing when its checkpoints are unevenly spaced, else undefined (the usual case says nothing). */
function spacingOfRun(steps: readonly number[] | undefined, opts: AnalyzeOptions): RunSpacing | undefined {
  if (!steps || steps.length < 3) return undefined;
  const s = spacingOf(steps);
  if (!s.uneven) return undefined;
  return { uneven: true, min_gap: s.min_gap, reference_gap: s.reference_gap, max_gap: s.max_gap, modelled: modelsGaps(steps, opts) };
}
