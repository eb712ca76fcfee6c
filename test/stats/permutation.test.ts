import assert from 'node:assert/strict';
import { test } from 'node:test';
import { partialCorrelation, permutationTest } from '../../src/stats/index.ts';
import { ar1, knownPartial } from './simulate.ts';

const linear = { method: 'pearson', residualiser: 'linear' } as const;

test('deterministic for a seed; observed is the partial correlation', () => {
  const { x, y, c } = knownPartial(50, 0.2, 21);
  const a = permutationTest(x, y, [c], { ...linear, permutations: 300, seed: 4 });
  const b = permutationTest(x, y, [c], { ...linear, permutations: 300, seed: 4 });
  assert.deepEqual(a, b);
  assert.ok(Math.abs(a.observed! - partialCorrelation(x, y, [c], linear).r!) < 1e-12);
  assert.ok(a.p > 0 && a.p <= 1);
  assert.equal((a.p * 301) % 1 < 1e-9 || (a.p * 301) % 1 > 1 - 1e-9, true, 'p = (1 + count) / (1 + permutations)');
});

test('a strong partial correlation gets the smallest possible p', () => {
  const { x, y, c } = knownPartial(100, 0.9, 8);
  const res = permutationTest(x, y, [c], { ...linear, permutations: 199, seed: 1 });
  assert.equal(res.p, 1 / 200);
});

test('respects autocorrelation: far fewer false positives than the naive t-test on independent AR(1) runs', () => {
  let naive = 0, shifted = 0;
  for (let s = 0; s < 20; s++) {
    const x = ar1(100, 0.95, 50 + s * 3), y = ar1(100, 0.95, 51 + s * 3), c = ar1(100, 0.95, 52 + s * 3);
    if (partialCorrelation(x, y, [c], linear).p! < 0.05) naive++;
    if (permutationTest(x, y, [c], { ...linear, permutations: 300, seed: s }).p < 0.05) shifted++;
  }
  assert.ok(naive >= 5, `the naive test rejects often here (${naive} of 20)`);
  assert.ok(shifted <= 3 && shifted < naive, `circular shifts rejected ${shifted} of 20 (naive ${naive})`);
});

test('works with Spearman and the spline residualiser', () => {
  const { x, y, c } = knownPartial(60, 0.7, 2);
  const res = permutationTest(x, y, [c], { method: 'spearman', residualiser: 'spline', permutations: 99, seed: 3 });
  assert.ok(res.observed! > 0.3);
  assert.ok(res.p <= 0.05);
});

test('a null observed r gives p = 1 with the reason', () => {
  const res = permutationTest([2, 2, 2, 2, 2, 2], [1, 3, 2, 5, 4, 6], [], { ...linear, permutations: 10, seed: 1 });
  assert.deepEqual(res, { p: 1, observed: null, reason: "series 'x' is constant" });
  assert.throws(() => permutationTest([1, 2, 3], [1, 2, 3], [], { ...linear, permutations: 0, seed: 1 }), /permutations/);
});
