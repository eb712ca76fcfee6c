// Corpus BLEU against sacrebleu 2.6.0 and the ROUGE bootstrap aggregate against numpy's
// (test/metrics/golden/make_bootstrap_bleu.py wrote bootstrap_bleu.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bootstrapRouge, corpusBleu, meanRougeScores, ROUGE_TYPES, type RougeScores } from '../../src/metrics/index.ts';
import { goldenDir } from './paths.ts';

interface BleuCase {
  hypotheses: string[]; references: string[]; score: number; counts: number[]; totals: number[]; precisions: number[]; bp: number;
  sys_len: number; ref_len: number;
}
type Prf = { p: number; r: number; f: number };
interface BootCase { seed: number; scores: RougeScores[]; aggregate: Record<string, { low: Prf; mid: Prf; high: Prf }> }
const golden = JSON.parse(readFileSync(path.join(goldenDir, 'bootstrap_bleu.json'), 'utf8')) as { bleu: BleuCase[]; bootstrap: BootCase[] };

const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

test('corpus BLEU equals sacrebleu\'s BLEU().corpus_score on every golden corpus', () => {
  assert.ok(golden.bleu.length >= 30);
  let nonzero = 0;
  for (const [i, c] of golden.bleu.entries()) {
    const got = corpusBleu(c.hypotheses, c.references);
    assert.deepEqual(got.correct, c.counts, `case ${i} counts`);
    assert.deepEqual(got.total, c.totals, `case ${i} totals`);
    assert.equal(got.sysLen, c.sys_len, `case ${i} sys_len`);
    assert.equal(got.refLen, c.ref_len, `case ${i} ref_len`);
    assert.ok(close(got.bp, c.bp), `case ${i} bp ${got.bp} vs ${c.bp}`);
    got.precisions.forEach((p, n) => assert.ok(close(p, c.precisions[n]), `case ${i} precision ${n + 1}`));
    assert.ok(close(got.score, c.score), `case ${i} score ${got.score} vs ${c.score}`);
    if (c.score > 0) nonzero++;
  }
  assert.ok(nonzero >= 20, `only ${nonzero} corpora with a nonzero score`);
});

test('the bootstrap aggregate equals rouge-score\'s BootstrapAggregator under numpy\'s seeded generator', () => {
  assert.ok(golden.bootstrap.length >= 10);
  for (const c of golden.bootstrap) {
    const got = bootstrapRouge(c.scores, { seed: c.seed });
    for (const t of ROUGE_TYPES) {
      for (const k of ['low', 'mid', 'high'] as const) {
        for (const m of ['p', 'r', 'f'] as const) {
          assert.ok(close(got[t][k][m], c.aggregate[t][k][m], 1e-12),
            `n=${c.scores.length} seed=${c.seed} ${t}.${k}.${m}: ${got[t][k][m]} vs ${c.aggregate[t][k][m]}`);
        }
      }
    }
  }
});

test('the bootstrap mid is near the mean but not the mean, and the seed decides it', () => {
  const c = golden.bootstrap.find((b) => b.scores.length === 250)!;
  const mean = meanRougeScores(c.scores).rougeL.f;
  const mid0 = bootstrapRouge(c.scores, { seed: 0 }).rougeL.mid.f;
  const mid1 = bootstrapRouge(c.scores, { seed: 1 }).rougeL.mid.f;
  assert.ok(Math.abs(mid0 - mean) < 0.01 && mid0 !== mean);
  assert.notEqual(mid0, mid1);
});
