// pivotedCholesky (stats/linalg.ts): a root L L' = A of a positive semi-definite matrix, singular or
// not, of A's rank; what SIMEX and the calibration draw a fixed test set's control errors from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pivotedCholesky } from '../../src/stats/linalg.ts';
import { shareCovariance } from '../../src/stats/example-covariance.ts';
import { createRandom } from '../../src/stats/random.ts';

function reconstructionError(a: Float64Array, n: number): { error: number; rank: number } {
  const { l, rank } = pivotedCholesky(a, n);
  let error = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let t = 0;
      for (let k = 0; k < rank; k++) t += l[i * n + k] * l[j * n + k];
      error = Math.max(error, Math.abs(t - a[i * n + j]));
    }
  }
  return { error, rank };
}

test('a full-rank covariance is rebuilt from its root', () => {
  const random = createRandom(5);
  const n = 30;
  const right = Array.from({ length: n }, () => Uint8Array.from({ length: 400 }, () => (random.uniform() < 0.6 ? 1 : 0)));
  const S = shareCovariance(right);
  const { error, rank } = reconstructionError(S, n);
  assert.equal(rank, n);
  assert.ok(error < 1e-15, `largest error ${error}`);
});

test('a singular one (fewer examples than checkpoints; answers that never change) gives its rank', () => {
  const random = createRandom(6);
  const few = Array.from({ length: 40 }, () => Uint8Array.from({ length: 12 }, () => (random.uniform() < 0.5 ? 1 : 0)));
  const r1 = reconstructionError(shareCovariance(few), 40);
  assert.ok(r1.rank <= 11, `rank ${r1.rank}: 12 examples, centred`);
  assert.ok(r1.error < 1e-15, `largest error ${r1.error}`);
  const same = Uint8Array.from({ length: 50 }, (_, i) => (i % 3 ? 1 : 0));
  const r2 = reconstructionError(shareCovariance([same, same, same, Uint8Array.from(same, (x, i) => (i === 0 ? 1 - x : x))]), 4);
  assert.equal(r2.rank, 2);
  assert.ok(r2.error < 1e-15, `largest error ${r2.error}`);
});
