// The control's sampling noise corrected (stats/control-residuals.ts), the drift-plus-white-noise
// model's REML fit (stats/noise-model.ts) and the modelled pair test built on both
// (stats/modelled-pair-tests.ts): against numpy's partial correlation from the corrected moment
// matrix (golden/make_control_error.py), a dense-matrix REML likelihood, and the naive test's r.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { controlResiduals } from '../../src/stats/control-residuals.ts';
import { modelledPairTests } from '../../src/stats/modelled-pair-tests.ts';
import { axisTimes, fitNoiseModel, noiseCorrelation } from '../../src/stats/noise-model.ts';
import { partialCorrelationPairs } from '../../src/stats/partial-correlation-batch.ts';
import { ouInto } from '../../src/stats/ar1.ts';
import { createRandom } from '../../src/stats/random.ts';

const golden = JSON.parse(readFileSync(new URL('./golden/control-error.json', import.meta.url), 'utf8')) as {
  cases: { a: number[]; b: number[]; c: number[]; v: number[]; r: number; r_naive: number; reliability: number }[];
};

const f64 = (v: number[]) => Float64Array.from(v);

test('method of moments: the corrected partial correlation equals numpy\'s from the corrected moment matrix', () => {
  assert.ok(golden.cases.length >= 6);
  for (const g of golden.cases) {
    const got = controlResiduals([f64(g.a), f64(g.b)], f64(g.c), [[0, 1]], undefined,
      { method: 'pearson', residualiser: 'linear', controlVariance: f64(g.v) }, new Uint8Array(2));
    assert.ok(typeof got !== 'string');
    assert.equal(got.correction, 'moments');
    const m = got.levels[0];
    assert.ok(Math.abs(m.c / Math.sqrt(m.va * m.vb) - g.r) < 1e-10, `${m.c / Math.sqrt(m.va * m.vb)} vs ${g.r}`);
    const raw = got.rawLevels[0];
    assert.ok(Math.abs(raw.c / Math.sqrt(raw.va * raw.vb) - g.r) > 1e-6 || Math.abs(g.r - g.r_naive) < 1e-6, 'the raw moments are uncorrected');
    assert.ok(Math.abs(got.reliability! - g.reliability) < 1e-12);
    // without the variance, the naive partial correlation
    const plain = controlResiduals([f64(g.a), f64(g.b)], f64(g.c), [[0, 1]], undefined,
      { method: 'pearson', residualiser: 'linear' }, new Uint8Array(2));
    assert.ok(typeof plain !== 'string');
    assert.ok(Math.abs(plain.levels[0].c / Math.sqrt(plain.levels[0].va * plain.levels[0].vb) - g.r_naive) < 1e-10);
  }
});

test('SIMEX on a spline that is a straight line recovers the method of moments within its extrapolation error', () => {
  for (const g of golden.cases.filter((c) => c.c.length >= 20)) {
    const opts = { method: 'pearson' as const, controlVariance: f64(g.v) };
    const mom = controlResiduals([f64(g.a), f64(g.b)], f64(g.c), [[0, 1]], undefined, { ...opts, residualiser: 'linear' }, new Uint8Array(2));
    const simex = controlResiduals([f64(g.a), f64(g.b)], f64(g.c), [[0, 1]], undefined,
      { ...opts, residualiser: 'spline', splineBasis: 3, seed: 1 }, new Uint8Array(2));
    assert.ok(typeof mom !== 'string' && typeof simex !== 'string');
    assert.equal(simex.correction, 'simex');
    const r = (m: { c: number; va: number; vb: number; simexR?: number }) => m.simexR ?? m.c / Math.sqrt(m.va * m.vb);
    // (SIMEX's own extrapolation, before the echo bound moves it toward zero: simexR)
    // quadratic extrapolation under-corrects a large correction (Carroll et al. 2006, 5.3): close
    // where the correction is moderate, and always on the corrected side of the naive value
    if (Math.abs(r(mom.levels[0]) - r(mom.rawLevels[0])) < 0.15) {
      assert.ok(Math.abs(r(simex.levels[0]) - r(mom.levels[0])) < 0.05, `simex ${r(simex.levels[0])} vs moments ${r(mom.levels[0])}`);
    }
    // it moves from the naive value towards the corrected one
    assert.ok(Math.abs(r(simex.levels[0]) - g.r) < Math.abs(r(simex.rawLevels[0]) - g.r) + 1e-9);
  }
});

/** -2 x the REML log-likelihood (up to the same constant) from dense matrices. */
function denseReml(e: Float64Array, x: Float64Array[], s: Float64Array): number {
  const n = e.length, p = x.length;
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let d = s[j * n + j];
    for (let k = 0; k < j; k++) d -= l[j * n + k] ** 2;
    l[j * n + j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      let v = s[i * n + j];
      for (let k = 0; k < j; k++) v -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = v / l[j * n + j];
    }
  }
  const solve = (v: Float64Array) => {
    const z = new Float64Array(n);
    for (let i = 0; i < n; i++) { let t = v[i]; for (let k = 0; k < i; k++) t -= l[i * n + k] * z[k]; z[i] = t / l[i * n + i]; }
    return z;
  };
  let logdet = 0;
  for (let i = 0; i < n; i++) logdet += 2 * Math.log(l[i * n + i]);
  const ze = solve(e), zx = x.map(solve);
  const dot = (a: Float64Array, b: Float64Array) => a.reduce((t, v, i) => t + v * b[i], 0);
  const g = zx.map((a) => zx.map((b) => dot(a, b)));
  const h = zx.map((a) => dot(a, ze));
  // p = 2: solve the 2 x 2 system
  assert.equal(p, 2);
  const det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
  const w0 = (g[1][1] * h[0] - g[0][1] * h[1]) / det, w1 = (g[0][0] * h[1] - g[1][0] * h[0]) / det;
  const q = dot(ze, ze) - (w0 * h[0] + w1 * h[1]);
  return logdet + Math.log(det) + (n - p) * Math.log(q);
}

test('the noise model\'s Kalman-filter REML equals the dense-matrix REML at its fit, on both axes', () => {
  const random = createRandom(5);
  const steps = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 2000, 3000, ...Array.from({ length: 12 }, (_, i) => 10000 * (i + 1))];
  const n = steps.length;
  const control = Float64Array.from(steps, (s) => 0.5 + 0.3 * (1 - Math.exp(-s / 20000)));
  const ones = new Float64Array(n).fill(1);
  for (let rep = 0; rep < 4; rep++) {
    const drift = ouInto(new Float64Array(n), axisTimes(steps, 'log-step'), 3, random);
    const e = Float64Array.from(drift, (v) => v + 0.5 * random.normal());
    const model = fitNoiseModel(e, [ones, control], steps);
    const dense = denseReml(e, [ones, control], noiseCorrelation(model, steps));
    assert.ok(Math.abs(-0.5 * dense - model.logLik) < 1e-8, `${-0.5 * dense} vs ${model.logLik}`);
    assert.ok(model.nugget > 0 && model.nugget < 1, `nugget ${model.nugget}`);
  }
});

test('the noise model tells white noise from a drift, and a drift under white noise from either', () => {
  const random = createRandom(9);
  const n = 60;
  const steps = Array.from({ length: n }, (_, i) => i * 500);
  const ones = new Float64Array(n).fill(1), c = Float64Array.from(steps, (s) => Math.log1p(s));
  const u = axisTimes(steps, 'step');
  let whiteDrift = 0, driftPhi = 0, mixedNugget = 0;
  const reps = 20;
  for (let rep = 0; rep < reps; rep++) {
    const white = Float64Array.from({ length: n }, () => random.normal());
    const m0 = fitNoiseModel(white, [ones, c], steps, ['step']);
    // the lag-1 correlation the fit implies
    whiteDrift += ((1 - m0.nugget) * m0.phi < 0.25 ? 1 : 0) / reps;
    const drift = ouInto(new Float64Array(n), u, 10, random);
    driftPhi += fitNoiseModel(drift, [ones, c], steps, ['step']).phi / reps;
    const mixed = Float64Array.from(ouInto(new Float64Array(n), u, 10, random), (v) => v + random.normal());
    mixedNugget += fitNoiseModel(mixed, [ones, c], steps, ['step']).nugget / reps;
  }
  assert.ok(whiteDrift >= 0.8, `white noise read as white in ${whiteDrift}`);
  assert.ok(driftPhi > 0.75, `a drift of time constant 10 gaps: mean phi ${driftPhi}`);
  assert.ok(mixedNugget > 0.25 && mixedNugget < 0.75, `half drift, half white: mean nugget ${mixedNugget}`);
});

test('the modelled test\'s r is the partial correlation (no variance given), and its effective n shrinks for a drift', () => {
  const random = createRandom(2);
  const n = 40;
  const steps = Array.from({ length: n }, (_, i) => i * 100);
  const control = Float64Array.from(steps, (s) => 0.4 + 0.4 * (1 - Math.exp(-s / 1500)) + 0.01 * random.normal());
  const white = [0, 1].map(() => Float64Array.from(control, (v) => 0.5 * v + 0.02 * random.normal()));
  const drift = [0, 1].map(() =>
    Float64Array.from(ouInto(new Float64Array(n), axisTimes(steps, 'step'), 15, random), (v, i) => 0.5 * control[i] + 0.02 * v));
  for (const [series, expectSmall] of [[white, false], [drift, true]] as const) {
    const got = modelledPairTests(series, control, [[0, 1]], { method: 'pearson', residualiser: 'linear', representation: 'levels' }, steps);
    const naive = partialCorrelationPairs({ x: series[0], y: series[1] }, [control], { method: 'pearson', residualiser: 'linear' })[0].result;
    assert.ok(Math.abs(got.pairs[0].result.r! - naive.r!) < 1e-12);
    const nEff = got.pairs[0].result.n_eff;
    if (expectSmall) assert.ok(nEff < 0.6 * n, `a drift: n_eff ${nEff}`);
    else assert.ok(nEff > 0.75 * n, `white noise: n_eff ${nEff}`);
  }
});
