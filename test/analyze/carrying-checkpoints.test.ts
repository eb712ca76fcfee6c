// carryingCheckpoints picks the largest products without sorting them all: the same answer as the
// stable sort of every checkpoint it replaced, on residuals drawn with ties (quantised values, both
// zeros), either sign of the covariance, one checkpoint dominating, and non-finite products.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CARRYING_CHECKPOINTS, carryingCheckpoints } from '../../src/analyze/stability.ts';
import { createRandom, type Random } from '../../src/stats/index.ts';

function reference(ea: Float64Array, eb: Float64Array): { checkpoints: number[]; how: 'outweighs' | 'flips' } | undefined {
  const n = ea.length;
  let sum = 0;
  const products = new Float64Array(n);
  for (let i = 0; i < n; i++) sum += (products[i] = ea[i] * eb[i]);
  if (sum === 0) return undefined;
  const sign = Math.sign(sum);
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => sign * products[j] - sign * products[i]);
  let rest = sign * sum;
  const scale = products.reduce((t, p) => t + Math.abs(p), 0);
  if (sign * products[order[0]] > scale / 2) return { checkpoints: [order[0]], how: 'outweighs' };
  for (let k = 0; k < Math.min(CARRYING_CHECKPOINTS, n); k++) {
    rest -= sign * products[order[k]];
    if (rest <= 1e-12 * scale) return { checkpoints: order.slice(0, k + 1).sort((x, y) => x - y), how: 'flips' };
  }
  return undefined;
}

function residuals(random: Random, n: number, kind: number): Float64Array {
  return Float64Array.from({ length: n }, () => {
    const z = random.normal();
    if (kind === 0) return z;
    if (kind === 1) return Math.round(z * 2) / 2; // ties
    if (kind === 2) return random.uniform() < 0.3 ? (random.uniform() < 0.5 ? 0 : -0) : Math.round(z);
    return random.uniform() < 0.05 ? Infinity : z;
  });
}

test('carryingCheckpoints answers as the stable sort of all checkpoints did', () => {
  const random = createRandom(3);
  const counts: Record<string, number> = {};
  for (let c = 0; c < 5000; c++) {
    const n = 1 + random.int(30), kind = random.int(4);
    const ea = residuals(random, n, kind), eb = residuals(random, n, kind);
    if (random.uniform() < 0.3) { const i = random.int(n); ea[i] *= 4; eb[i] *= 4 * (random.uniform() < 0.5 ? 1 : -1); }
    const want = reference(ea, eb);
    if (want !== undefined) {
      const key = `${want.how} ${want.checkpoints.length}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    assert.deepEqual(carryingCheckpoints(ea, eb), want, `case ${c}: ${Array.from(ea)} / ${Array.from(eb)}`);
  }
  // every answer is reached (5000 cases: about 1200, 1100 and 600)
  for (const key of ['outweighs 1', 'flips 1', 'flips 2']) assert.ok(counts[key] > 300, `${key}: ${counts[key]}`);
});
