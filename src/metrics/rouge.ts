/**
 * ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum with the semantics of google-research's rouge-score
 * (`RougeScorer(['rouge1','rouge2','rougeL','rougeLsum'], use_stemmer=...)`).
 *
 * Written by hand because the npm ROUGE packages differ from rouge-score (tokenisation, stemming,
 * clipping, Lsum's union LCS). Arithmetic runs in rouge-score's order, so results are equal to its
 * floats, not merely close.
 */
import { lcsIndices, lcsLength } from './lcs.ts';
import { CachedPorterStemmer } from './porterStemmer.ts';
import { splitRougeSentences, tokenizeForRouge } from './rougeTokenize.ts';

/** Precision, recall and F1 of one ROUGE variant. */
export interface PrfScore {
  p: number;
  r: number;
  f: number;
}

export const ROUGE_TYPES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const;
export type RougeType = (typeof ROUGE_TYPES)[number];
export type RougeScores = Record<RougeType, PrfScore>;

export interface RougeOptions {
  /** Porter-stem tokens longer than 3 characters (rouge-score's use_stemmer). Default false. */
  stemmer?: boolean;
}

export interface RougePair {
  prediction: string;
  reference: string;
}

/** F1 of precision and recall, 0 when both are 0 (rouge-score's scoring.fmeasure). */
export function fMeasure(p: number, r: number): number {
  return p + r > 0 ? (2 * p * r) / (p + r) : 0;
}

function prf(p: number, r: number): PrfScore {
  return { p, r, f: fMeasure(p, r) };
}

const ZERO: Readonly<PrfScore> = Object.freeze({ p: 0, r: 0, f: 0 });

/** A text as token ids: per non-empty line (for Lsum) and all lines joined (for the others). */
interface TokenizedText {
  tokens: Int32Array;
  sentences: Int32Array[];
}

/** Bigram keys pack two ids into one number, exact while ids stay below 2^26. */
const BIGRAM_BASE = 2 ** 26;

function countNgrams(tokens: Int32Array, n: 1 | 2): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = n === 1 ? tokens[i] : tokens[i] * BIGRAM_BASE + tokens[i + 1];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** ROUGE-N with counts clipped to the reference: overlap / prediction n-grams, overlap / reference n-grams. */
function scoreNgrams(reference: Int32Array, prediction: Int32Array, n: 1 | 2): PrfScore {
  const referenceCounts = countNgrams(reference, n);
  const predictionCounts = countNgrams(prediction, n);
  let overlap = 0;
  for (const [key, count] of referenceCounts) overlap += Math.min(count, predictionCounts.get(key) ?? 0);
  const referenceTotal = Math.max(reference.length - n + 1, 0);
  const predictionTotal = Math.max(prediction.length - n + 1, 0);
  return prf(overlap / Math.max(predictionTotal, 1), overlap / Math.max(referenceTotal, 1));
}

function scoreLcs(reference: Int32Array, prediction: Int32Array): PrfScore {
  if (reference.length === 0 || prediction.length === 0) return { ...ZERO };
  const lcs = lcsLength(reference, prediction);
  return prf(lcs / prediction.length, lcs / reference.length);
}

function countTokens(sentences: Int32Array[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const sentence of sentences) for (const token of sentence) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/**
 * Summary-level LCS (ROUGE paper, section 3.2) as rouge-score implements it: for each reference
 * sentence, the union of its LCS positions against every prediction sentence; a token counts as a
 * hit only while both texts still have unused occurrences of it (ROUGE 1.5.5's no-double-counting).
 */
function scoreSummaryLevelLcs(referenceSentences: Int32Array[], predictionSentences: Int32Array[]): PrfScore {
  if (referenceSentences.length === 0 || predictionSentences.length === 0) return { ...ZERO };
  let m = 0;
  for (const s of referenceSentences) m += s.length;
  let n = 0;
  for (const s of predictionSentences) n += s.length;
  if (m === 0 || n === 0) return { ...ZERO };

  const referenceLeft = countTokens(referenceSentences);
  const predictionLeft = countTokens(predictionSentences);
  let hits = 0;
  for (const reference of referenceSentences) {
    const inUnion = new Uint8Array(reference.length);
    for (const prediction of predictionSentences) for (const i of lcsIndices(reference, prediction)) inUnion[i] = 1;
    for (let i = 0; i < reference.length; i++) {
      if (inUnion[i] === 0) continue;
      const token = reference[i];
      const inPrediction = predictionLeft.get(token) ?? 0;
      const inReference = referenceLeft.get(token) ?? 0;
      if (inPrediction > 0 && inReference > 0) {
        hits++;
        predictionLeft.set(token, inPrediction - 1);
        referenceLeft.set(token, inReference - 1);
      }
    }
  }
  return prf(hits / n, hits / m);
}

/**
 * Scores prediction/reference pairs, remembering the tokenisation of every text it has seen (a test
 * set's references are scored again for every checkpoint). Its caches grow with the distinct texts
 * and words: keep one per evaluation, not one per process.
 */
export class RougeScorer {
  private readonly stemmer: CachedPorterStemmer | undefined;
  private readonly vocabulary = new Map<string, number>();
  private readonly texts = new Map<string, TokenizedText>();

  constructor(options: RougeOptions = {}) {
    this.stemmer = options.stemmer === true ? new CachedPorterStemmer() : undefined;
  }

  /** All four ROUGE variants of `prediction` against `reference`. */
  score(prediction: string, reference: string): RougeScores {
    const pred = this.tokenize(prediction);
    const ref = this.tokenize(reference);
    return {
      rouge1: scoreNgrams(ref.tokens, pred.tokens, 1),
      rouge2: scoreNgrams(ref.tokens, pred.tokens, 2),
      rougeL: scoreLcs(ref.tokens, pred.tokens),
      rougeLsum: scoreSummaryLevelLcs(ref.sentences, pred.sentences),
    };
  }

  scoreAll(pairs: readonly RougePair[]): RougeScores[] {
    return pairs.map(({ prediction, reference }) => this.score(prediction, reference));
  }

  private tokenize(text: string): TokenizedText {
    let tokenized = this.texts.get(text);
    if (tokenized === undefined) {
      // Lines are tokenised one by one and joined: "\n" is a separator, so this equals tokenising
      // the whole text, and Lsum's sentences come for free.
      const stem = this.stemmer === undefined ? undefined : (word: string) => this.stemmer!.stem(word);
      const sentences = splitRougeSentences(text).map((line) => this.toIds(tokenizeForRouge(line, stem)));
      const tokens = new Int32Array(sentences.reduce((sum, s) => sum + s.length, 0));
      let offset = 0;
      for (const s of sentences) {
        tokens.set(s, offset);
        offset += s.length;
      }
      tokenized = { tokens, sentences };
      this.texts.set(text, tokenized);
    }
    return tokenized;
  }

  private toIds(tokens: string[]): Int32Array {
    const ids = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      let id = this.vocabulary.get(tokens[i]);
      if (id === undefined) {
        id = this.vocabulary.size;
        if (id >= BIGRAM_BASE) throw new Error(`ROUGE vocabulary passed ${BIGRAM_BASE} distinct tokens`);
        this.vocabulary.set(tokens[i], id);
      }
      ids[i] = id;
    }
    return ids;
  }
}

/** ROUGE of one pair; use `RougeScorer` or `rougeScoreBatch` for many pairs. */
export function rougeScore(prediction: string, reference: string, options: RougeOptions = {}): RougeScores {
  return new RougeScorer(options).score(prediction, reference);
}

/** ROUGE of many pairs, tokenising each distinct text once. */
export function rougeScoreBatch(pairs: readonly RougePair[], options: RougeOptions = {}): RougeScores[] {
  return new RougeScorer(options).scoreAll(pairs);
}

/** The arithmetic mean of each p, r and f over pairs (summed in order); throws for no pairs. */
export function meanRougeScores(scores: readonly RougeScores[]): RougeScores {
  if (scores.length === 0) throw new RangeError('meanRougeScores: no scores to average');
  const mean = {} as RougeScores;
  for (const type of ROUGE_TYPES) {
    let p = 0;
    let r = 0;
    let f = 0;
    for (const s of scores) {
      p += s[type].p;
      r += s[type].r;
      f += s[type].f;
    }
    mean[type] = { p: p / scores.length, r: r / scores.length, f: f / scores.length };
  }
  return mean;
}
