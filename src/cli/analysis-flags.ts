// The analysis options `analyze` and `report` share: declared once, read once.
import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import { DEFAULT_OPTIONS, type AnalyzeOptions } from '../analyze/analysis.ts';

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
  testSets?: string;
  promptVariant: string;
}

export function addAnalysisOptions(cmd: Command): Command {
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
    .option('--test-sets <list>', 'comma-separated OOD test sets to include (default: all but the control)')
    .option('--prompt-variant <name>', 'prompt variant to read from a store', '');
}

export function analysisOptionsFromFlags(flags: AnalysisFlags): Omit<AnalyzeOptions, 'control'> {
  return {
    method: flags.method,
    residualiser: flags.residualiser,
    inference: flags.inference,
    correction: flags.correction,
    alpha: number(flags.alpha, '--alpha', (x) => x > 0 && x < 1),
    differences: flags.differences ?? false,
    bootstrap: number(flags.bootstrap, '--bootstrap', (x) => Number.isInteger(x) && x >= 0),
    blockLength: flags.blockLength === undefined ? undefined : number(flags.blockLength, '--block-length', (x) => Number.isInteger(x) && x >= 1),
    permutations: number(flags.permutations, '--permutations', (x) => Number.isInteger(x) && x >= 0),
    seed: number(flags.seed, '--seed', Number.isInteger),
    testSets: flags.testSets?.split(',').map((s) => s.trim()).filter(Boolean),
  };
}

function number(text: string, flag: string, ok: (x: number) => boolean): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x) || !ok(x)) throw new UserError(`${flag}: invalid value "${text}"`);
  return x;
}
