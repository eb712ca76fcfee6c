// The inference methods: one record per method of stats/'s INFERENCES (the Record type makes a
// method missing from it a type error), holding what the method is called in a table's title and
// in --help, whether it models an uneven step schedule's gaps, and its test of a run's pairs. The
// dispatch (pair-tests.ts), the analysis options' help (options.ts) and the table's title
// (format.ts) read this record, so adding a method is its stats/ test, its name in INFERENCES and
// one entry here.
import {
  capAtLevelRows, countDistinctRows, denseIds, firstDifferences, modelledPairTests, partialCorrelationPairs,
  type Inference, type ModelledOptions,
} from '../stats/index.ts';
import { statOptions, type PairTest, type PairTestContext, type PairTestOptions, type SamplingNoise } from './pair-test-contract.ts';

export interface InferenceMethod {
  /** The method in a table's title. */
  title: string;
  /** The method in the --inference help. */
  help: string;
  /** Whether its test models the gaps of an uneven step schedule (else it counts checkpoints whatever their spacing). */
  modelsGaps: boolean;
  test: PairTest;
}

/**
 * The modelled effective-n test (stats/modelled-pair-tests.ts: any step schedule, the control's
 * sampling noise corrected when known), or the papers' naive one on levels or first differences.
 */
export const INFERENCE_METHODS: Record<Inference, InferenceMethod> = {
  'effective-n': {
    title: 't-test on the effective sample size (drift plus white noise)',
    help: 'the effective sample size of a drift-plus-white-noise model fitted to the residuals',
    modelsGaps: true,
    test: (series, pairs, control, opts, steps, noise, context) => {
      const names = Object.keys(series);
      const index = new Map(names.map((name, i) => [name, i]));
      const run = modelledPairTests(names.map((t) => series[t]), control, pairs.map(([a, b]) => [index.get(a)!, index.get(b)!] as const),
        modelledOptions(control, opts, noise, names, context), steps, names);
      const extra = {
        correction: run.correction, ...(run.controlReliability !== undefined ? { controlReliability: run.controlReliability } : {}),
        ...(run.uncorrected ? { uncorrected: run.uncorrected } : {}),
      };
      return run.pairs.map((t, i) => ({ a: pairs[i][0], b: pairs[i][1], ...t, ...extra }));
    },
  },
  naive: {
    title: 'naive t-test (checkpoints as independent)',
    help: 'every checkpoint independent, as the papers',
    modelsGaps: false,
    test: (series, pairs, control, opts) => naivePairs(series, control, opts, pairs),
  },
};

/** The --inference help: each method in words. */
export const inferenceHelp = (): string =>
  `how p-values count checkpoints: ${Object.entries(INFERENCE_METHODS).map(([name, m]) => `${name}, ${m.help}`).join('; or ')}`;

function modelledOptions(
  control: Float64Array, opts: PairTestOptions, noise: SamplingNoise, names: string[], context: PairTestContext,
): ModelledOptions {
  return {
    ...statOptions(control, opts), representation: opts.representation, controlVariance: noise.control,
    controlCovariance: noise.controlCovariance,
    seriesVariance: names.map((t) => noise.series?.[t]), fits: context.fits,
  };
}

/** The papers' test: every checkpoint an independent observation, on levels or first differences. */
function naivePairs(
  series: Record<string, Float64Array>, control: Float64Array, opts: PairTestOptions, pairs: readonly (readonly [string, string])[],
): ReturnType<PairTest> {
  if (opts.representation === 'differences') {
    const diff: Record<string, Float64Array> = {};
    for (const [k, v] of Object.entries(series)) diff[k] = firstDifferences(v);
    const diffControl = firstDifferences(control);
    const controlIds = denseIds(control);
    const ids = new Map<string, ReturnType<typeof denseIds>>();
    const idsOf = (name: string) => { let d = ids.get(name); if (!d) ids.set(name, (d = denseIds(series[name]))); return d; };
    // D distinct level rows hold at most D - 1 changes: the differences' observations are capped by the pair's level rows
    return partialCorrelationPairs(diff, [diffControl], statOptions(diffControl, opts), pairs).map((p) => ({
      ...p, result: capAtLevelRows(p.result, countDistinctRows([controlIds, idsOf(p.a), idsOf(p.b)], control.length)),
      representation: 'differences' as const,
    }));
  }
  // 'levels', and 'auto' (which has no effective n to choose by)
  return partialCorrelationPairs(series, [control], statOptions(control, opts), pairs).map((p) => ({ ...p, representation: 'levels' as const }));
}
