// The analysis options, declared once: each option's kind, choices (from what stats/ offers),
// default and help, as an option table (src/option-table.ts). From this one table come the zod
// schema that validates a study file's `analysis:` section (config/schema.ts) and a library
// caller's options, the defaults (DEFAULT_OPTIONS), and the command-line flags of `analyze` and
// `report` (cli/analysis-flags.ts), so the three cannot drift apart. docs/analyze.md documents them.
import { z } from 'zod';
import { shapeOf, type OptionTable, type Values } from '../option-table.ts';
import { CORRECTIONS, CORRELATION_METHODS, INFERENCES, TAU2_ESTIMATORS } from '../stats/index.ts';
import { inferenceHelp } from './inference-methods.ts';
import { REPRESENTATION_CHOICES, RESIDUALISER_CHOICES } from './pair-test-contract.ts';
import { REGRESSORS } from './regressor.ts';

/** Strictly between 0 and 1 (a level, a correlation). */
const OPEN_UNIT = { min: 0, max: 1, minOpen: true, maxOpen: true } as const;

export const ANALYSIS_OPTIONS = {
  method: { kind: 'choice', choices: CORRELATION_METHODS, default: 'pearson', metavar: 'method',
    help: 'correlation (Spearman ranks every series and the control first)' },
  residualiser: { kind: 'choice', choices: RESIDUALISER_CHOICES, default: 'auto', metavar: 'kind',
    help: 'how the control is regressed out: a straight line, a penalised spline with GCV (a GAM), or auto: the spline for runs with ' +
      'at least 12 checkpoints (OOD scores bend with the in-domain score), else the line' },
  regressOn: { kind: 'choice', choices: REGRESSORS, default: 'score', metavar: 'what', flag: 'regress-on',
    help: "what is regressed out of each OOD series: the control's scores, or ln(1 + step), training time, which carries no sampling " +
      "noise (for a control scored on a fixed test set, whose persisting errors the control's correction does not model; it also " +
      'removes every smooth trend two sets share)' },
  splineBasis: { kind: 'integer', min: 3, metavar: 'k', flag: 'spline-basis',
    help: "the spline's basis dimension (default: 10, at most half the control's distinct values)" },
  inference: { kind: 'choice', choices: INFERENCES, default: 'effective-n', metavar: 'test', help: inferenceHelp() },
  representation: { kind: 'choice', choices: REPRESENTATION_CHOICES, default: 'auto', metavar: 'series',
    help: 'correlate levels, first differences, or (auto) per pair whichever keeps more effective observations (levels with --inference naive)' },
  correction: { kind: 'choice', choices: CORRECTIONS, default: 'holm', metavar: 'method',
    help: 'multiple-testing correction over the pairs of each run' },
  alpha: { kind: 'number', default: 0.05, ...OPEN_UNIT, metavar: 'level',
    help: 'significance level (after correction) for the agreement across runs' },
  calibration: { kind: 'integer', default: 200, min: 0, metavar: 'simulations', help: "per run, simulate this many null and alternative " +
    "pairs like the run's residuals and report the test's false-positive rate and power (0: none)" },
  effect: { kind: 'number', default: 0.5, ...OPEN_UNIT, metavar: 'r', help: 'the true partial correlation the calibration reports power for' },
  robustness: { kind: 'boolean', default: true,
    help: 'recompute every verdict under each of the 8 analysis choices pearson/spearman x linear/spline x levels/differences ' +
      '("holds under k of m"; under half: fragile)' },
  bootstrap: { kind: 'integer', default: 0, min: 0, metavar: 'resamples',
    help: 'moving-block bootstrap confidence intervals with this many resamples (0: none)' },
  blockLength: { kind: 'integer', min: 1, metavar: 'steps', help: 'block length for the bootstrap (default: ceil(n^(1/3)))' },
  permutations: { kind: 'integer', default: 0, min: 0, metavar: 'count',
    help: 'order-respecting (circular shift) permutation test with this many permutations (0: none)' },
  seed: { kind: 'integer', default: 0, min: 0, metavar: 'seed', help: 'seed for the bootstrap, the permutations and the calibration' },
  testSets: { kind: 'list', flag: 'test-set', metavar: 'set...', help: 'the OOD test sets to include (default: all but the control)' },
  maxPairs: { kind: 'integer', default: 100_000, min: 1, metavar: 'count', help: 'refuse inputs whose OOD sets make more pairs than ' +
    'this per run (n sets make n(n-1)/2 pairs, each tested, simulated and pooled): name the sets with --test-set, or raise it' },
  minCheckpoints: { kind: 'integer', min: 1, metavar: 'n', help: 'leave out (with a note) runs with fewer checkpoints; the others are ' +
    "analysed (default: the fewest the residualiser can use, 5 linear, 12 spline; runs below that are always left out)" },
  metaEstimator: { kind: 'choice', choices: TAU2_ESTIMATORS, default: 'REML', anyCase: true, metavar: 'estimator',
    help: 'across runs: between-run variance estimator of the per-pair random-effects meta-analysis' },
  hartungKnapp: { kind: 'boolean', default: true, help: 'across runs: use the Hartung-Knapp adjustment of the pooled effect, a t test on ' +
    'runs - 1 df (without it, the plain z test, too many false positives with few heterogeneous runs)' },
  equivalenceMargin: { kind: 'number', default: 0.1, ...OPEN_UNIT, metavar: 'r',
    help: "across runs: a pair is negligible everywhere when its 95% prediction interval lies inside +/- this partial correlation" },
  keepUnstable: { kind: 'boolean', default: false, help: 'across runs: pool runs whose pair is unstable (a series with too few distinct ' +
    'values, or one or two checkpoints carrying a significant correlation); by default they are listed and left out' },
  moderator: { kind: 'string', metavar: 'attribute',
    help: 'across runs: meta-regress each pair on this run attribute (e.g. model, training_set, method; numeric values give a slope)' },
} as const satisfies OptionTable;

export type AnalysisOptionName = keyof typeof ANALYSIS_OPTIONS;

/** Command-line shorthands: a flag that sets options to fixed values. */
export const ANALYSIS_SHORTHANDS = {
  differences: { sets: { representation: 'differences' },
    help: 'correlate first differences between checkpoints (same as --representation differences)' },
} as const;

/** The analysis options as a study file and a library caller give them (every field optional). */
export const AnalysisOptionsSchema = z.strictObject(shapeOf(ANALYSIS_OPTIONS));

/** The analysis options after defaults: the type follows the table above. */
export type AnalysisOptions = Values<typeof ANALYSIS_OPTIONS>;

/** Every option at its default. */
export const DEFAULT_OPTIONS: AnalysisOptions = AnalysisOptionsSchema.parse({});

/** The options of analysis.ts: the declared analysis options and the control test set. */
export type AnalyzeOptions = AnalysisOptions & { control: string };
