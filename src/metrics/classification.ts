/**
 * Classification metrics over string labels, with scikit-learn's semantics where it has them:
 * `accuracy_score`, `f1_score(average='binary', pos_label=..., zero_division=0)` on labels reduced
 * to positive / not positive, and `f1_score(average='macro', zero_division=0)`. A ratio whose
 * denominator is 0 (no predicted or no true positives) counts as 0, never NaN, so a checkpoint that
 * never predicts the positive label scores F1 = 0.
 *
 * Written here, not taken from a library: it is a few counts, and pinning the conventions above
 * (string labels, one-vs-rest binary F1, zero_division=0) is the point; goldens from scikit-learn
 * check them (test/metrics/golden/make_classification.py).
 */

/** Precision, recall and F1 of one label. */
export interface LabelPrf {
  p: number;
  r: number;
  f: number;
}

function checkPaired(predictions: readonly string[], golds: readonly string[], metric: string): void {
  if (predictions.length !== golds.length) {
    throw new RangeError(`${metric}: ${predictions.length} predictions but ${golds.length} gold labels`);
  }
  if (predictions.length === 0) throw new RangeError(`${metric}: no examples`);
}

function divideOrZero(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

/** Fraction of predictions equal to their gold label. Throws on unequal lengths or no examples. */
export function accuracy(predictions: readonly string[], golds: readonly string[]): number {
  checkPaired(predictions, golds, 'accuracy');
  let correct = 0;
  for (let i = 0; i < golds.length; i++) if (predictions[i] === golds[i]) correct++;
  return correct / golds.length;
}

/** Counts-based precision, recall and F1 of `label`, every other label counting as negative. */
function labelPrf(predictions: readonly string[], golds: readonly string[], label: string): LabelPrf {
  let truePositives = 0;
  let predictedPositives = 0;
  let actualPositives = 0;
  for (let i = 0; i < golds.length; i++) {
    const predicted = predictions[i] === label;
    const actual = golds[i] === label;
    if (predicted) predictedPositives++;
    if (actual) actualPositives++;
    if (predicted && actual) truePositives++;
  }
  const p = divideOrZero(truePositives, predictedPositives);
  const r = divideOrZero(truePositives, actualPositives);
  // scikit-learn's order of operations: (1 + beta^2) * p * r / (beta^2 * p + r) with beta = 1.
  return { p, r, f: divideOrZero(2 * p * r, p + r) };
}

/**
 * Precision, recall and F1 of `positiveLabel` against all other labels (a prediction outside the
 * label set is simply not positive).
 */
export function binaryPrf(predictions: readonly string[], golds: readonly string[], positiveLabel: string): LabelPrf {
  checkPaired(predictions, golds, 'binary F1');
  return labelPrf(predictions, golds, positiveLabel);
}

/** Binary F1 of `positiveLabel`: 0 when there are no true positives (zero_division=0). */
export function binaryF1(predictions: readonly string[], golds: readonly string[], positiveLabel: string): number {
  return binaryPrf(predictions, golds, positiveLabel).f;
}

/**
 * Unweighted mean of the per-label F1. The labels are `labels` when given (predictions outside them
 * still count as misses of the gold label), otherwise every label seen in golds or predictions,
 * sorted, as scikit-learn does: so a predicted label that never occurs in gold adds an F1 of 0.
 */
export function macroF1(predictions: readonly string[], golds: readonly string[], labels?: readonly string[]): number {
  checkPaired(predictions, golds, 'macro F1');
  const labelSet = labels ?? [...new Set([...golds, ...predictions])].sort();
  if (labelSet.length === 0) throw new RangeError('macro F1: empty label set');
  let sum = 0;
  for (const label of labelSet) sum += labelPrf(predictions, golds, label).f;
  return sum / labelSet.length;
}

/** Options of `exactMatch`. */
export interface ExactMatchOptions {
  /** Applied to both strings before comparing; by default they must be identical. */
  normalize?: (text: string) => string;
}

/** Fraction of predictions equal to their reference (after `normalize`, if given). */
export function exactMatch(
  predictions: readonly string[],
  references: readonly string[],
  options: ExactMatchOptions = {},
): number {
  checkPaired(predictions, references, 'exact match');
  const normalize = options.normalize ?? ((text: string) => text);
  let equal = 0;
  for (let i = 0; i < references.length; i++) if (normalize(predictions[i]) === normalize(references[i])) equal++;
  return equal / references.length;
}

const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// Python's \b on str: a word character is a Unicode letter or number, or '_'.
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
// Python's str.split() whitespace, which differs from JavaScript's \s (\x1c-\x1f, \x85; not \ufeff).
// eslint-disable-next-line no-control-regex -- \x1c-\x1f are in Python's whitespace set on purpose
const PYTHON_WHITESPACE = /[\t-\r\x1c- \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * The SQuAD v1.1 evaluation's answer normalisation: lower-case, drop ASCII punctuation, drop the
 * articles a/an/the, collapse whitespace. Use it as `exactMatch(p, g, { normalize: normalizeAnswer })`.
 */
export function normalizeAnswer(text: string): string {
  const lowered = text.toLowerCase().replace(ASCII_PUNCTUATION, '').replace(ARTICLES, ' ');
  return lowered.split(PYTHON_WHITESPACE).filter((word) => word.length > 0).join(' ');
}
