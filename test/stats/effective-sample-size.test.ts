import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bartlettEffectiveN, biasCorrectedAr1, createRandom, levelsOrDifferencesPairs, MAX_PHI,
  partialCorrelation, partialCorrelationPairs,
} from '../../src/stats/index.ts';
import { ar1 } from './simulate.ts';

test("Bartlett's n_eff for two AR(1) series: n (1 - phi_x phi_y) / (1 + phi_x phi_y), never above n", () => {
  assert.equal(bartlettEffectiveN(0, 0, 25), 25);
  assert.ok(Math.abs(bartlettEffectiveN(0.8, 0.8, 25) - 25 * 0.36 / 1.64) < 1e-12);
  assert.ok(Math.abs(bartlettEffectiveN(0.5, 0.9, 40) - 40 * 0.55 / 1.45) < 1e-12);
  // a negative product would claim more observations than there are
  assert.equal(bartlettEffectiveN(-0.6, 0.6, 30), 30);
  // capped at the distinct rows
  assert.equal(bartlettEffectiveN(0, 0, 30, 12), 12);
});

test('the lag-1 autocorrelation is corrected for its small-sample bias and clipped', () => {
  assert.ok(Math.abs(biasCorrectedAr1(0.5, 20) - (0.5 + 2.5 / 20)) < 1e-15);
  assert.ok(Math.abs(biasCorrectedAr1(0, 10) - 0.1) < 1e-15);
  assert.equal(biasCorrectedAr1(0.98, 10), MAX_PHI);
  assert.equal(biasCorrectedAr1(-1, 10), -MAX_PHI);
  // averaged over many AR(1) series of 25, the corrected estimate is closer to the truth
  let raw = 0, corrected = 0;
  const reps = 400;
  for (let i = 0; i < reps; i++) {
    const x = ar1(25, 0.6, 1000 + i);
    const m = x.reduce((s, v) => s + v, 0) / x.length;
    let c0 = 0, c1 = 0;
    for (let t = 0; t < x.length; t++) c0 += (x[t] - m) ** 2;
    for (let t = 0; t + 1 < x.length; t++) c1 += (x[t] - m) * (x[t + 1] - m);
    raw += c1 / c0;
    corrected += biasCorrectedAr1(c1 / c0, 25);
  }
  assert.ok(Math.abs(corrected / reps - 0.6) < Math.abs(raw / reps - 0.6) / 2, `raw ${raw / reps}, corrected ${corrected / reps}`);
});

test("the effective-n test: df = n_eff - 3, the CI uses n_eff, phi reported; 'naive' keeps pingouin's n", () => {
  const x = ar1(40, 0.7, 1), y = ar1(40, 0.7, 2), c = ar1(40, 0.9, 3);
  const naive = partialCorrelation(x, y, [c], { method: 'pearson', residualiser: 'linear' });
  const eff = partialCorrelation(x, y, [c], { method: 'pearson', residualiser: 'linear', inference: 'effective-n' });
  assert.equal(naive.n_eff, 40);
  assert.equal(naive.df, 37);
  assert.equal(eff.r, naive.r);
  assert.ok(eff.phi && eff.phi[0] > 0.3 && eff.phi[1] > 0.3, `phi ${eff.phi}`);
  assert.ok(Math.abs(eff.n_eff - bartlettEffectiveN(eff.phi![0], eff.phi![1], 40)) < 1e-12);
  assert.ok(Math.abs(eff.df - (eff.n_eff - 3)) < 1e-12);
  assert.ok(eff.p! > naive.p!, 'fewer effective observations give a larger p');
  const half = Math.atanh(eff.ci95![1]) - Math.atanh(eff.r!);
  assert.ok(Math.abs(half - 1.959963984540054 / Math.sqrt(eff.n_eff - 4)) < 1e-9);
});

test('the pairs form gives the same effective-n results as one pair at a time', () => {
  const c = ar1(30, 0.9, 7);
  const series = { a: Float64Array.from(ar1(30, 0.5, 8)), b: Float64Array.from(ar1(30, 0.8, 9)), c: Float64Array.from(ar1(30, 0.2, 10)) };
  const opts = { method: 'spearman', residualiser: 'linear', inference: 'effective-n' } as const;
  const pairs = partialCorrelationPairs(series, [Float64Array.from(c)], opts);
  for (const p of pairs) {
    const one = partialCorrelation(series[p.a as 'a'], series[p.b as 'a'], [c], opts);
    assert.ok(Math.abs(p.result.n_eff - one.n_eff) < 1e-9, `${p.a}-${p.b} nEff ${p.result.n_eff} vs ${one.n_eff}`);
    assert.ok(Math.abs(p.result.p! - one.p!) < 1e-9 * Math.max(1, one.p!));
  }
});

/** Null runs: x = 0.8 c + AR(1), y = -0.3 c + an independent AR(1), c a saturating curve plus noise. */
function nullRun(n: number, phi: number, seed: number): { c: Float64Array; series: Record<string, Float64Array> } {
  const random = createRandom(seed);
  const c = new Float64Array(n), x = new Float64Array(n), y = new Float64Array(n);
  const ex = ar1(n, phi, seed * 3 + 1), ey = ar1(n, phi, seed * 3 + 2);
  for (let t = 0; t < n; t++) {
    c[t] = 0.3 + 0.5 * (1 - Math.exp(-4 * t / (n - 1))) + 0.02 * random.normal();
    x[t] = 0.8 * c[t] + 0.05 * ex[t];
    y[t] = -0.3 * c[t] + 0.05 * ey[t];
  }
  return { c, series: { x, y } };
}

test('on autocorrelated nulls (phi 0.8, n 25) the default keeps about 5% false positives; the naive test does not', () => {
  const reps = 500;
  let naive = 0, chosen = 0;
  for (let i = 0; i < reps; i++) {
    const { c, series } = nullRun(25, 0.8, 5000 + i);
    const p0 = partialCorrelationPairs(series, [c], { method: 'pearson', residualiser: 'linear' })[0].result.p!;
    const p1 = levelsOrDifferencesPairs(series, [c], { method: 'pearson', residualiser: 'linear' })[0].result.p;
    if (p0 < 0.05) naive++;
    if (p1 !== null && p1 < 0.05) chosen++;
  }
  // 500 draws: the binomial sd at 5% is 1%, so 8% is three sd above the nominal rate
  assert.ok(chosen / reps <= 0.08, `default false-positive rate ${chosen / reps}`);
  assert.ok(naive / reps >= 0.15, `naive false-positive rate ${naive / reps}`);
});

test('a near random walk is tested on differences, white noise on levels', () => {
  const walk = nullRun(40, 0.99, 11);
  const white = nullRun(40, 0, 12);
  assert.equal(levelsOrDifferencesPairs(walk.series, [walk.c], { method: 'pearson', residualiser: 'linear' })[0].representation, 'differences');
  assert.equal(levelsOrDifferencesPairs(white.series, [white.c], { method: 'pearson', residualiser: 'linear' })[0].representation, 'levels');
});

test('pairs named explicitly (matched pairs) give the same results as one pair at a time', () => {
  const c = Float64Array.from(ar1(25, 0.9, 70));
  const xs = [71, 72, 73].map((s) => Float64Array.from(ar1(25, 0.6, s)));
  const ys = [74, 75, 76].map((s) => Float64Array.from(ar1(25, 0.3, s)));
  ys[2] = Float64Array.from(c, (v) => 2 * v + 1); // constant residuals: a null result with its reason
  for (const inference of ['naive', 'effective-n'] as const) {
    const series = Object.fromEntries(xs.flatMap((x, i) => [[`x${i}`, x], [`y${i}`, ys[i]]]));
    const pairs = xs.map((_, i) => [`x${i}`, `y${i}`] as const);
    const matched = partialCorrelationPairs(series, [c], { method: 'pearson', residualiser: 'linear', inference }, pairs);
    matched.forEach(({ a, b, result: m }, i) => {
      assert.deepEqual([a, b], pairs[i], 'results come in the order of the pairs asked for');
      const one = partialCorrelation(xs[i], ys[i], [c], { method: 'pearson', residualiser: 'linear', inference });
      assert.equal(m.r === null, one.r === null);
      assert.equal(m.reason?.replace(`'y${i}'`, "'y'"), one.reason);
      if (one.r !== null) {
        assert.ok(Math.abs(m.r! - one.r) < 1e-12 && Math.abs(m.n_eff - one.n_eff) < 1e-9 && Math.abs(m.p! - one.p!) < 1e-9);
      }
    });
  }
});
