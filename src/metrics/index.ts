// The metrics a library user needs: ROUGE (rouge-score semantics, per-example mean or the HF metric's
// bootstrap aggregate), corpus BLEU (sacreBLEU's defaults), NLTK's Porter stemmer,
// classification metrics, and the id/text JSON-lines reader behind `genstudy metrics rouge`.
export { porterStem, CachedPorterStemmer } from './porterStemmer.ts';
export { tokenizeForRouge, splitRougeSentences } from './rougeTokenize.ts';
export {
  fMeasure,
  meanRougeScores,
  ROUGE_TYPES,
  rougeScore,
  rougeScoreBatch,
  RougeScorer,
  type PrfScore,
  type RougeOptions,
  type RougePair,
  type RougeScores,
  type RougeType,
} from './rouge.ts';
export { bootstrapRouge, numpyPercentile, type AggregateScore, type BootstrapOptions } from './rougeBootstrap.ts';
export { corpusBleu, tokenize13a, pythonSplit, type BleuScore } from './bleu.ts';
export { formatRougeTable, scoreRougePairs, type RougePairScores, type RougeReport } from './rougeReport.ts';
export {
  accuracy,
  binaryF1,
  binaryPrf,
  exactMatch,
  macroF1,
  normalizeAnswer,
  type ExactMatchOptions,
  type LabelPrf,
} from './classification.ts';
export { joinById, parseIdTextJsonl, readIdTextJsonl, type IdTextRecord, type JoinedPair } from './idTextJsonl.ts';
