// A results store's per-example answers as right/wrong results (example-results.ts), for the
// metrics that are a share of right answers, by the rule that computed them (src/evaluate/
// cell-metrics.ts: accuracy, the prediction equal to the gold; acc_norm, the normalised prediction).
import { ResultStore, type StoredAnswer } from '../store/result-store.ts';
import type { ExampleResult, ExampleResultSource } from './example-results.ts';

const SHARE_METRICS: Readonly<Record<string, (a: StoredAnswer) => boolean>> = {
  accuracy: (a) => a.prediction !== null && a.prediction === a.gold,
  acc_norm: (a) => a.predictionNorm !== null && a.predictionNorm === a.gold,
};

/**
 * The store's answers of one prompt variant. Given a path, each call opens the store for as long
 * as its results are iterated; given an open store, it is read and left open.
 */
export function storeExampleResults(store: ResultStore | string, promptVariant: string): ExampleResultSource {
  return (run, testSet, metric) => {
    const isRight = SHARE_METRICS[metric];
    if (isRight === undefined) return undefined;
    return answers(store, run, testSet, promptVariant, isRight);
  };
}

function* answers(
  source: ResultStore | string, run: string, testSet: string, promptVariant: string, isRight: (a: StoredAnswer) => boolean,
): Generator<ExampleResult> {
  const store = typeof source === 'string' ? ResultStore.open(source, { readonly: true }) : source;
  try {
    for (const a of store.iterateAnswers(run, testSet, promptVariant)) yield { step: a.step, exampleId: a.exampleId, right: isRight(a) };
  } finally {
    if (typeof source === 'string') store.close();
  }
}
