// Per-example results behind a score: each checkpoint's right (1) or wrong (0) on each example of
// a test set, where an input holds them (a results store's answers, store-example-results.ts;
// lm-evaluation-harness's samples files, lm-eval-samples.ts). The analysis estimates a fixed test
// set's errors' covariance across checkpoints from them (error-covariance.ts).

export interface ExampleResult { step: number; exampleId: string; right: boolean }

/**
 * A run's results on one test set for one metric, ordered by step and, within a step, by example
 * in one order shared by every step; undefined where the input has none for them, or the metric's
 * per-example values are not right/wrong (not a share of right answers).
 */
export type ExampleResultSource = (run: string, testSet: string, metric: string) => Iterable<ExampleResult> | undefined;
