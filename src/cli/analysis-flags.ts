// The analysis options `analyze` and `report` share: declared once, read once.
import { Command, Option } from 'commander';
import { DEFAULT_OPTIONS, type AnalyzeOptions } from '../analyze/analysis.ts';
import { listValues, numberIn, wholeNumber } from './flag-values.ts';
import { addTestSetOption } from './shared-options.ts';
import { TAU2_ESTIMATORS, type Tau2Estimator } from '../stats/index.ts';

export interface AnalysisFlags {
  method: AnalyzeOptions['method'];
  residualiser: AnalyzeOptions['residualiser'];
  inference: AnalyzeOptions['inference'];
  correction: AnalyzeOptions['correction'];
  alpha: string;
  bootstrap: string;
  blockLength?: string;
  permutations: string;
  seed: string;
  differences?: boolean;
  testSet?: string[];
  promptVariant: string;
  metaEstimator: string;
  hartungKnapp?: boolean;
  moderator?: string;
}

export function addAnalysisOptions(cmd: Command): Command {
  addTestSetOption(cmd, { required: false, help: 'the OOD test sets to include (default: all but the control)' });
  return cmd
    .addOption(new Option('--method <method>', 'correlation (Spearman ranks every series and the control first)').choices(['pearson', 'spearman']).default(DEFAULT_OPTIONS.method))
    .addOption(new Option('--residualiser <kind>', 'how the control is regressed out: a straight line, or a penalised spline with GCV (a GAM)').choices(['linear', 'spline']).default(DEFAULT_OPTIONS.residualiser))
    .addOption(new Option('--inference <test>', "how p-values count checkpoints: Bartlett's effective sample size from the residuals' autocorrelation, or naive (every checkpoint independent, as the papers)").choices(['effective-n', 'naive']).default(DEFAULT_OPTIONS.inference))
    .addOption(new Option('--correction <method>', 'multiple-testing correction over the pairs of each run').choices(['holm', 'bonferroni', 'bh', 'by', 'none']).default(DEFAULT_OPTIONS.correction))
    .option('--alpha <level>', 'significance level (after correction) for the agreement across runs', String(DEFAULT_OPTIONS.alpha))
    .option('--bootstrap <resamples>', 'moving-block bootstrap confidence intervals with this many resamples (0: none)', '0')
    .option('--block-length <steps>', 'block length for the bootstrap (default: ceil(n^(1/3)))')
    .option('--permutations <count>', 'order-respecting (circular shift) permutation test with this many permutations (0: none)', '0')
    .option('--seed <seed>', 'seed for the bootstrap and permutations', String(DEFAULT_OPTIONS.seed))
    .option('--differences', 'correlate first differences between checkpoints instead of levels')
    .option('--prompt-variant <name>', 'prompt variant to read from a store', '')
    .addOption(new Option('--meta-estimator <estimator>', 'across runs: between-run variance estimator of the per-pair random-effects meta-analysis').choices(TAU2_ESTIMATORS.map((e) => e.toLowerCase())).default(DEFAULT_OPTIONS.metaEstimator.toLowerCase()))
    .option('--hartung-knapp', 'across runs: Hartung-Knapp adjustment of the pooled effect, a t test on runs - 1 df (the default)')
    .option('--no-hartung-knapp', 'across runs: the plain z test for the pooled effect instead (too many false positives with few heterogeneous runs)')
    .option('--moderator <attribute>', 'across runs: meta-regress each pair on this run attribute (e.g. model, training_set, method; numeric values give a slope)');
}

export function analysisOptionsFromFlags(flags: AnalysisFlags): Omit<AnalyzeOptions, 'control'> {
  return {
    method: flags.method,
    residualiser: flags.residualiser,
    inference: flags.inference,
    correction: flags.correction,
    alpha: numberIn('--alpha', flags.alpha, { min: 0, max: 1, minOpen: true, maxOpen: true })!,
    differences: flags.differences ?? false,
    bootstrap: wholeNumber('--bootstrap', flags.bootstrap, { min: 0 })!,
    blockLength: wholeNumber('--block-length', flags.blockLength, { min: 1 }),
    permutations: wholeNumber('--permutations', flags.permutations, { min: 0 })!,
    seed: wholeNumber('--seed', flags.seed, { min: 0 })!,
    testSets: listValues(flags.testSet),
    metaEstimator: flags.metaEstimator.toUpperCase() as Tau2Estimator,
    hartungKnapp: flags.hartungKnapp ?? DEFAULT_OPTIONS.hartungKnapp,
    moderator: flags.moderator,
  };
}
