// MomentSpread (stats/moment-spread.ts): the first-order spread of r = c / sqrt(va vb) over draws
// of the moments, against the spread of r computed draw by draw when the draws are small.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MomentSpread } from '../../src/stats/moment-spread.ts';
import { createRandom } from '../../src/stats/random.ts';

function spreads(c: number, va: number, vb: number, move: (z: number[]) => [number, number, number]) {
  const random = createRandom(3);
  const spread = new MomentSpread(1);
  const rs: number[] = [];
  for (let d = 0; d < 4000; d++) {
    const [dc, da, db] = move([random.normal(), random.normal(), random.normal()]);
    spread.add(0, c + dc, va + da, vb + db);
    spread.drawn();
    rs.push((c + dc) / Math.sqrt((va + da) * (vb + db)));
  }
  const mean = rs.reduce((t, r) => t + r, 0) / rs.length;
  return { firstOrder: spread.rVariance(0, c, va, vb), direct: rs.reduce((t, r) => t + (r - mean) ** 2, 0) / (rs.length - 1) };
}

test('at r near 0 it is the spread of c over the variances; with correlated moves it agrees with r\'s own spread', () => {
  const alone = spreads(0, 1, 1, ([z]) => [1e-3 * z, 0, 0]);
  assert.ok(Math.abs(alone.firstOrder / 1e-6 - 1) < 0.06, `${alone.firstOrder}`);
  const mixed = spreads(0.5, 2, 0.5, ([x, y, z]) => [1e-3 * x, 2e-3 * (0.6 * x + 0.8 * y), 1e-3 * z]);
  assert.ok(Math.abs(mixed.firstOrder / mixed.direct - 1) < 0.02, `${mixed.firstOrder} vs ${mixed.direct}`);
});

test('a mirrored pair, whose draws move c and both variances together, has (nearly) no spread of r', () => {
  const mirrored = spreads(-1, 1, 1, ([x]) => [-1e-2 * x, 1e-2 * x, 1e-2 * x]);
  assert.ok(mirrored.firstOrder < 1e-12, `${mirrored.firstOrder}`);
  assert.ok(mirrored.direct < 1e-12, `${mirrored.direct}`);
  const cOnly = spreads(-1, 1, 1, ([x]) => [-1e-2 * x, 0, 0]);
  assert.ok(cOnly.firstOrder > 5e-5, 'c moving alone does move r');
});

test('fewer than two draws, or a variance that is not positive, give 0', () => {
  const s = new MomentSpread(1);
  s.add(0, 0.1, 1, 1);
  s.drawn();
  assert.equal(s.rVariance(0, 0.1, 1, 1), 0);
  s.add(0, 0.2, 1, 1);
  s.drawn();
  assert.ok(s.rVariance(0, 0.1, 1, 1) > 0);
  assert.equal(s.rVariance(0, 0.1, 0, 1), 0);
});
