// The inference methods in words: what each is called in a table's title and in --help. One
// record per method of stats/'s INFERENCES; the Record type makes a new method without its words a
// type error. How each is run is pair-tests.ts's PAIR_TESTS, keyed the same way.
import type { Inference } from '../stats/index.ts';

export const INFERENCE_WORDS: Record<Inference, { title: string; help: string }> = {
  'effective-n': {
    title: 't-test on the effective sample size (drift plus white noise)',
    help: 'the effective sample size of a drift-plus-white-noise model fitted to the residuals',
  },
  naive: {
    title: 'naive t-test (checkpoints as independent)',
    help: 'every checkpoint independent, as the papers',
  },
};

/** The --inference help: each method in words. */
export const inferenceHelp = (): string =>
  `how p-values count checkpoints: ${Object.entries(INFERENCE_WORDS).map(([name, w]) => `${name}, ${w.help}`).join('; or ')}`;
