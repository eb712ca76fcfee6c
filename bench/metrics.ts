// ROUGE throughput on the rouge-score golden pairs (../shared/golden/rouge), cold (a fresh scorer:
// every text tokenised and stemmed) and warm (texts already tokenised, as when a test set's
// references are scored again for the next checkpoint), and stemmer throughput against NLTK's own
// PorterStemmer run by Debian's /usr/bin/python3 on the same words, when that Python has nltk.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RougeScorer, type RougePair } from '../src/metrics/rouge.ts';
import { porterStem } from '../src/metrics/porterStemmer.ts';

const sharedRouge = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/golden/rouge');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs `fn` `repeats` times and returns the median of `count / seconds`. */
function perSecond(count: number, repeats: number, fn: () => void): number {
  const rates: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    fn();
    rates.push(count / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

function nltkWordsPerSecond(words: string[]): number | undefined {
  const python = '/usr/bin/python3';
  if (!existsSync(python)) return undefined;
  const script = [
    'import sys, time',
    'from nltk.stem.porter import PorterStemmer',
    'words = sys.stdin.read().split("\\n")',
    'rates = []',
    'for _ in range(5):',
    '    s = PorterStemmer(); t0 = time.perf_counter()',
    '    for w in words: s.stem(w)',
    '    rates.append(len(words) / (time.perf_counter() - t0))',
    'print(sorted(rates)[2])',
  ].join('\n');
  const r = spawnSync(python, ['-c', script], { input: words.join('\n'), encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : undefined;
}

export async function benchMetrics(): Promise<Record<string, number>> {
  if (!existsSync(sharedRouge)) throw new Error(`benchMetrics needs the ROUGE goldens at ${sharedRouge}`);
  const pairs: RougePair[] = [];
  for (const file of readdirSync(sharedRouge).filter((f) => f.endsWith('.jsonl')).sort()) {
    for (const line of readFileSync(path.join(sharedRouge, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const record = JSON.parse(line) as RougePair & { use_stemmer: boolean };
      if (record.use_stemmer) pairs.push({ prediction: record.prediction, reference: record.reference });
    }
  }
  const words = readFileSync(path.join(sharedRouge, 'stems.tsv'), 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[0]);

  const results: Record<string, number> = { golden_pairs: pairs.length };
  for (const stemmer of [true, false]) {
    const tag = stemmer ? 'stemmer' : 'no_stemmer';
    results[`rouge_cold_pairs_per_s_${tag}`] = perSecond(pairs.length, 5, () => new RougeScorer({ stemmer }).scoreAll(pairs));
    const warm = new RougeScorer({ stemmer });
    warm.scoreAll(pairs);
    results[`rouge_warm_pairs_per_s_${tag}`] = perSecond(pairs.length, 5, () => warm.scoreAll(pairs));
  }
  results.stem_words_per_s = perSecond(words.length, 5, () => {
    for (const w of words) porterStem(w);
  });
  const nltk = nltkWordsPerSecond(words);
  if (nltk !== undefined) results.nltk_stem_words_per_s = nltk;
  return results;
}
