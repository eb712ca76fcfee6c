/**
 * Corpus BLEU with sacreBLEU's default settings (sacrebleu 2.x `BLEU().corpus_score(hyps, [refs])`,
 * as study B's indicator_cross.py called it): the 13a tokenizer (mteval-v13a's), mixed case, n-grams
 * up to 4, one reference per hypothesis, "exp" smoothing (a zero n-gram count's precision becomes
 * 100 / (2^k * total) for the k-th such order), brevity penalty exp(1 - r/c), score on 0-100.
 *
 * Written by hand: no npm package implements sacreBLEU's tokenizer and smoothing. Golden values from
 * sacrebleu itself: test/metrics/golden/make_bootstrap_bleu.py.
 */
import { isPythonSpace, pythonRstrip } from '../python-whitespace.ts';

export interface BleuScore {
  /** 0-100, as sacreBLEU reports it. */
  score: number;
  /** Clipped n-gram matches and hypothesis n-grams, n = 1..4. */
  correct: number[];
  total: number[];
  /** Per-order precisions in percent (smoothed). */
  precisions: number[];
  bp: number;
  sysLen: number;
  refLen: number;
}

const MAX_ORDER = 4;

// TokenizerRegexp: punctuation and symbols split off; "." and "," unless between digits; "-" after a digit.
const SYMBOLS = /([{-~[-` -&(-+:-@/])/g;
const PERIOD_COMMA_AFTER = /([^0-9])([.,])/g;
const PERIOD_COMMA_BEFORE = /([.,])([^0-9])/g;
const DASH_AFTER_DIGIT = /([0-9])(-)/g;

/** Python's str.split() with no argument: runs of Python whitespace separate, none at the ends. */
export function pythonSplit(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of s) {
    if (ch.length === 1 && isPythonSpace(ch)) {
      if (cur) { out.push(cur); cur = ''; }
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/** sacreBLEU's "13a" tokenizer. */
export function tokenize13a(line: string): string {
  let s = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (s.includes('&')) s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  s = ` ${s} `;
  s = s.replace(SYMBOLS, ' $1 ').replace(PERIOD_COMMA_AFTER, '$1 $2 ').replace(PERIOD_COMMA_BEFORE, ' $1 $2').replace(DASH_AFTER_DIGIT, '$1 $2 ');
  return pythonSplit(s).join(' ');
}

function ngrams(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (let n = 1; n <= MAX_ORDER; n++) {
    for (let i = 0; i + n <= tokens.length; i++) {
      const key = `${n}\u0000${tokens.slice(i, i + n).join('\u0001')}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** sacreBLEU's corpus_score(hypotheses, [references]) with BLEU()'s defaults. */
export function corpusBleu(hypotheses: readonly string[], references: readonly string[]): BleuScore {
  if (hypotheses.length !== references.length) {
    throw new RangeError(`corpusBleu: ${hypotheses.length} hypotheses for ${references.length} references`);
  }
  const correct = new Array<number>(MAX_ORDER).fill(0);
  const total = new Array<number>(MAX_ORDER).fill(0);
  let sysLen = 0;
  let refLen = 0;
  hypotheses.forEach((hyp, i) => {
    const h = pythonSplit(tokenize13a(pythonRstrip(hyp)));
    const r = pythonSplit(tokenize13a(pythonRstrip(references[i])));
    const refCounts = ngrams(r);
    sysLen += h.length;
    refLen += r.length;
    for (const [key, count] of ngrams(h)) {
      const n = Number(key.slice(0, key.indexOf('\u0000'))) - 1;
      total[n] += count;
      correct[n] += Math.min(count, refCounts.get(key) ?? 0);
    }
  });
  let bp = 1;
  if (sysLen < refLen) bp = sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0;
  const precisions = new Array<number>(MAX_ORDER).fill(0);
  if (!correct.some((c) => c > 0)) return { score: 0, correct, total, precisions, bp, sysLen, refLen };
  let smooth = 1;
  for (let n = 0; n < MAX_ORDER; n++) {
    if (total[n] === 0) break;
    if (correct[n] === 0) {
      smooth *= 2;
      precisions[n] = 100 / (smooth * total[n]);
    } else precisions[n] = (100 * correct[n]) / total[n];
  }
  // sacrebleu's my_log floors log(0) at -9999999999.
  const logSum = precisions.reduce((acc, p) => acc + (p === 0 ? -9999999999 : Math.log(p)), 0);
  return { score: bp * Math.exp(logSum / MAX_ORDER), correct, total, precisions, bp, sysLen, refLen };
}
