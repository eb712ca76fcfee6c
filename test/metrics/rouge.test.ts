import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  meanRougeScores,
  ROUGE_TYPES,
  rougeScore,
  rougeScoreBatch,
  RougeScorer,
  type RougeScores,
} from '../../src/metrics/rouge.ts';
import { tokenizeForRouge } from '../../src/metrics/rougeTokenize.ts';
import { porterStem } from '../../src/metrics/porterStemmer.ts';
import { hasSharedRouge, SHARED_MISSING, sharedRougeDir } from './paths.ts';

interface GoldenRecord extends RougeScores {
  dataset: string;
  idx: number;
  prediction: string;
  reference: string;
  use_stemmer: boolean;
}

// The README of the goldens: same operations in the same order reproduce rouge-score's floats.
const TOLERANCE = 1e-12;

function readGolden(): Map<string, GoldenRecord[]> {
  const byFile = new Map<string, GoldenRecord[]>();
  for (const file of readdirSync(sharedRougeDir).filter((f) => f.endsWith('.jsonl')).sort()) {
    const lines = readFileSync(path.join(sharedRougeDir, file), 'utf8').split('\n').filter((l) => l.trim().length > 0);
    byFile.set(file, lines.map((l) => JSON.parse(l) as GoldenRecord));
  }
  return byFile;
}

function differences(got: RougeScores, want: RougeScores, label: string): string[] {
  const out: string[] = [];
  for (const type of ROUGE_TYPES) {
    for (const k of ['p', 'r', 'f'] as const) {
      if (!(Math.abs(got[type][k] - want[type][k]) <= TOLERANCE)) {
        out.push(`${label} ${type}.${k}: got ${got[type][k]}, rouge-score ${want[type][k]}`);
      }
    }
  }
  return out;
}

test('equals rouge-score on every golden pair, with and without the stemmer', (t) => {
  if (!hasSharedRouge) return t.skip(SHARED_MISSING);
  const golden = readGolden();
  assert.ok(golden.size >= 5, `expected the five golden files, found ${[...golden.keys()].join(', ')}`);
  let checked = 0;
  for (const [file, records] of golden) {
    for (const stemmer of [true, false]) {
      const subset = records.filter((r) => r.use_stemmer === stemmer);
      assert.ok(subset.length > 0, `${file}: no records with use_stemmer=${stemmer}`);
      const scores = rougeScoreBatch(subset, { stemmer });
      const bad = subset.flatMap((r, i) => differences(scores[i], r, `${file} idx ${r.idx} stemmer=${stemmer}`));
      assert.deepEqual(bad.slice(0, 10), []);
      checked += subset.length;
    }
  }
  assert.ok(checked > 4000, `only ${checked} golden records checked`);
});

test('rougeL and rougeLsum really differ on the multi-line CNN references (the union-LCS path is exercised)', (t) => {
  if (!hasSharedRouge) return t.skip(SHARED_MISSING);
  const cnn = readGolden().get('cnn_first_half.jsonl') ?? [];
  const differing = cnn.filter((r) => r.rougeL.f !== r.rougeLsum.f);
  assert.ok(differing.length > 100, `only ${differing.length} CNN records where L and Lsum differ`);
  for (const r of differing.slice(0, 50)) {
    assert.deepEqual(differences(rougeScore(r.prediction, r.reference, { stemmer: r.use_stemmer }), r, `cnn ${r.idx}`), []);
  }
});

test('one scorer reused over many pairs gives what a fresh scorer gives per pair', (t) => {
  if (!hasSharedRouge) return t.skip(SHARED_MISSING);
  const records = (readGolden().get('xsum.jsonl') ?? []).filter((r) => r.use_stemmer).slice(0, 60);
  const scorer = new RougeScorer({ stemmer: true });
  // Twice through, so the second pass reads every text from the cache.
  for (const r of [...records, ...records]) {
    assert.deepEqual(scorer.score(r.prediction, r.reference), rougeScore(r.prediction, r.reference, { stemmer: true }));
  }
});

const ZEROS = { p: 0, r: 0, f: 0 };

test('an empty or token-free prediction or reference scores 0 everywhere', () => {
  for (const stemmer of [false, true]) {
    for (const [prediction, reference] of [
      ['', 'the cat sat on the mat'],
      ['the cat sat on the mat', ''],
      ['', ''],
      ['?!  ... \n\n --', 'the cat sat'],
      ['the cat sat', '\n\n'],
    ]) {
      const scores = rougeScore(prediction, reference, { stemmer });
      for (const type of ROUGE_TYPES) assert.deepEqual(scores[type], ZEROS, `${type} of ${JSON.stringify([prediction, reference])}`);
    }
  }
});

test('identical texts score 1, except ROUGE-2 of a single token (no bigrams: 0)', () => {
  const text = 'The quick brown fox\njumps over the lazy dog.';
  const scores = rougeScore(text, text);
  for (const type of ROUGE_TYPES) assert.deepEqual(scores[type], { p: 1, r: 1, f: 1 }, type);
  const single = rougeScore('Fox!', 'fox');
  assert.deepEqual(single.rouge1, { p: 1, r: 1, f: 1 });
  assert.deepEqual(single.rouge2, ZEROS);
});

test('on single-line texts rougeLsum equals rougeL; empty lines do not change rougeLsum', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'the', 'a', 'runs', 'running', 'ran'];
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const sentence = () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => words[Math.floor(next() * words.length)]).join(' ');
  for (let i = 0; i < 200; i++) {
    const prediction = sentence();
    const reference = sentence();
    const s = rougeScore(prediction, reference, { stemmer: i % 2 === 0 });
    assert.deepEqual(s.rougeLsum, s.rougeL, `${prediction} | ${reference}`);
    const multi = `${sentence()}\n${sentence()}`;
    const withBlank = multi.replace('\n', '\n\n\n');
    assert.deepEqual(rougeScore(prediction, withBlank).rougeLsum, rougeScore(prediction, multi).rougeLsum);
  }
});

test('tokeniser: lower-cases, splits on every non-[a-z0-9] run, stems only tokens longer than 3', () => {
  assert.deepEqual(tokenizeForRouge("Don't STOP-now!  it's 3:45\tpm, café"), ['don', 't', 'stop', 'now', 'it', 's', '3', '45', 'pm', 'caf']);
  // 'was' would stem to something else, but three-letter tokens are left alone.
  assert.notEqual(porterStem('was'), 'was');
  assert.deepEqual(tokenizeForRouge('Was running ties', porterStem), ['was', porterStem('running'), porterStem('ties')]);
});

test('mean of scores averages p, r and f separately; no scores is an error', () => {
  const a = rougeScore('the cat', 'the cat sat');
  const b = rougeScore('a dog', 'the cat sat');
  const mean = meanRougeScores([a, b]);
  for (const type of ROUGE_TYPES) {
    for (const k of ['p', 'r', 'f'] as const) assert.equal(mean[type][k], (a[type][k] + b[type][k]) / 2);
  }
  assert.throws(() => meanRougeScores([]), /no scores/);
});
