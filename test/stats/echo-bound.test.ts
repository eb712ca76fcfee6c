// SIMEX's echo bound (stats/control-residuals.ts): a SIMEX-corrected r is moved toward zero by as
// much again as the correction moved it (Fisher z, never past zero), only where the correction moved
// it toward zero; the variances, and with them the effective n, are kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { pairTable } from '../../src/analyze/pair-columns.ts';
import { echoBound, type PairMoments } from '../../src/stats/control-residuals.ts';
import { hashString } from '../../src/seeded-random.ts';
import { CONTROL, simulateStudy, type StudySpec } from '../../bench/realistic-runs.ts';

const moments = (r: number, va = 2, vb = 0.5): PairMoments => ({ c: r * Math.sqrt(va * vb), va, vb });
const rOf = (m: PairMoments) => m.c / Math.sqrt(m.va * m.vb);
const close = (x: number, y: number, what: string) => assert.ok(Math.abs(x - y) < 1e-12, `${what}: ${x} against ${y}`);

test('a correction toward zero is applied once more, on the Fisher z scale', () => {
  for (const [raw, simex] of [[0.5, 0.3], [-0.5, -0.3], [0.9, 0.8], [0.2, 0.15]]) {
    const got = echoBound({ ...moments(simex), correctionVariance: 0.01 }, moments(raw, 3, 0.7));
    const z = Math.atanh(simex), moved = Math.atanh(raw) - z;
    close(rOf(got), Math.tanh(z - moved), `raw ${raw}, SIMEX ${simex}`);
    assert.equal(got.simexR, simex);
    assert.equal(got.va, 2);
    assert.equal(got.vb, 0.5);
    assert.equal(got.correctionVariance, 0.01);
  }
});

test('never past zero; nothing moved where the correction moved away from zero or across it', () => {
  close(rOf(echoBound(moments(0.05), moments(0.5))), 0, 'a correction larger than what is left');
  close(rOf(echoBound(moments(-0.05), moments(-0.5))), 0, 'the same, negative');
  for (const [raw, simex] of [[0.2, 0.3], [0.1, -0.05], [-0.1, 0.05], [0.3, 0.3]]) {
    const got = echoBound(moments(simex), moments(raw));
    close(rOf(got), simex, `raw ${raw}, SIMEX ${simex}`);
    assert.equal(got.simexR, simex);
  }
});

test('the analysis reports SIMEX\'s r and the uncorrected r beside the bounded r it tests', () => {
  const spec: StudySpec = { schedule: 'even', shape: 'convex', n: 1000, idNoisy: true, models: 5, oodSets: 4, truth: 'null' };
  let bounded = 0, seen = 0;
  for (let i = 0; i < 3; i++) {
    const result = analyzeRuns(simulateStudy(spec, hashString(`echo-bound/${i}`)).map((r) => r.series),
      { ...DEFAULT_OPTIONS, control: CONTROL, robustness: false, calibration: 0 });
    // the CSV (analyze --format csv, pairs.csv, the report's table) carries both beside r
    const table = pairTable(result, 0.05);
    const col = (name: string) => table.columns.indexOf(name);
    const pairs = result.runs.flatMap((run) => run.pairs);
    assert.deepEqual(table.rows.map((row) => [row[col('r_simex')], row[col('r_uncorrected')]]),
      pairs.map((p) => [p.r_simex ?? null, p.r_uncorrected ?? null]));
    for (const run of result.runs) {
      assert.equal(run.control_noise?.correction, 'simex');
      for (const p of run.pairs) {
        if (p.r === null || p.r_simex === undefined) continue;
        seen++;
        const z = Math.atanh(p.r_simex), moved = Math.atanh(p.r_uncorrected!) - z;
        const towardZero = moved !== 0 && Math.sign(moved) === Math.sign(z);
        const expected = towardZero ? Math.tanh(Math.sign(z) * Math.max(0, Math.abs(z) - Math.abs(moved))) : p.r_simex;
        assert.ok(Math.abs(p.r - expected) < 1e-9, `${run.run} ${p.a}/${p.b}: r ${p.r}, expected ${expected}`);
        if (Math.abs(p.r) < Math.abs(p.r_simex) - 1e-12) bounded++;
      }
    }
  }
  // 3 studies of 5 runs x 6 pairs; the echo is positive for OOD sets that both rise with in-domain progress
  assert.ok(seen >= 60, `${seen} pairs with SIMEX's r`);
  assert.ok(bounded >= seen / 4, `${bounded} of ${seen} moved toward zero`);
});
