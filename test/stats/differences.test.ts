import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstDifferences } from '../../src/stats/index.ts';
import { orthonormalise, symmetricEigen } from '../../src/stats/linalg.ts';

test('firstDifferences is numpy.diff', () => {
  assert.deepEqual(Array.from(firstDifferences([1, 4, 9, 16])), [3, 5, 7]);
  assert.deepEqual(Array.from(firstDifferences([5])), []);
  assert.throws(() => firstDifferences([1, NaN]), /index 1/);
});

test('symmetricEigen reconstructs the matrix; orthonormalise drops dependent columns', () => {
  const m = 4;
  const a = Float64Array.from([4, 1, 0.5, 0, 1, 3, 0.2, 0.1, 0.5, 0.2, 2, 1e-3, 0, 0.1, 1e-3, 1e-9]);
  const { values, vectors } = symmetricEigen(a, m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) {
    let s = 0;
    for (let l = 0; l < m; l++) s += vectors[i * m + l] * values[l] * vectors[j * m + l];
    assert.ok(Math.abs(s - a[i * m + j]) < 1e-14, `A[${i},${j}]`);
  }
  const ones = Float64Array.from([1, 1, 1, 1]);
  const t = Float64Array.from([1, 2, 3, 5]);
  const { q, kept, r } = orthonormalise([ones, t, t.map((v) => 2 * v + 3), Float64Array.from([0, 0, 0, 0])]);
  assert.deepEqual(kept, [0, 1]);
  assert.equal(q.length, 2);
  assert.ok(Math.abs(q[0].reduce((s, v, i) => s + v * q[1][i], 0)) < 1e-15);
  assert.equal(r.length, 4);
});
