// The sample autocorrelation and the effective-n test against statsmodels and scipy (golden values
// from test/stats/golden/make_acf_golden.py).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lag1Autocorrelation } from '../../src/stats/autocorrelation.ts';
import { autocorrelation, createRandom, partialCorrelation } from '../../src/stats/index.ts';
import { assertClose, assertRelClose, golden } from './helpers.ts';

interface AcfCase { name: string; x: number[]; nlags: number; acf: number[] }
interface EffectiveCase {
  name: string; x: number[]; y: number[]; c: number[]; phi: [number, number]; nEff: number; r: number; df: number; p: number | null;
}
const fixture = golden<{ acf: AcfCase[]; effective: EffectiveCase[] }>('acf.json');

test('autocorrelation matches statsmodels acf (adjusted=False)', () => {
  for (const c of fixture.acf) {
    const got = autocorrelation(c.x, c.nlags)!;
    assert.equal(got.length, c.acf.length);
    c.acf.forEach((v, j) => assertClose(got[j], v, 1e-12, `${c.name} lag ${j}`));
  }
  assert.equal(autocorrelation([2, 2, 2, 2], 2), null, 'a constant series has no autocorrelation');
  assert.throws(() => autocorrelation([1, 2, 3], 3), /nlags must be an integer from 0 to n - 1 = 2/);
});

test('the effective-n test matches statsmodels OLS residuals, acf, and scipy t', () => {
  for (const c of fixture.effective) {
    const got = partialCorrelation(c.x, c.y, [c.c], { method: 'pearson', residualiser: 'linear', inference: 'effective-n' });
    assertClose(got.phi![0], c.phi[0], 1e-10, `${c.name} phi x`);
    assertClose(got.phi![1], c.phi[1], 1e-10, `${c.name} phi y`);
    assertClose(got.n_eff, c.nEff, 1e-9, `${c.name} nEff`);
    assertClose(got.r, c.r, 1e-10, `${c.name} r`);
    assertClose(got.df, c.df, 1e-9, `${c.name} df`);
    assertRelClose(got.p, c.p!, 1e-8, `${c.name} p`);
  }
});

test('the lag-1 autocorrelation the effective-n test uses is autocorrelation()\'s own, to the bit', () => {
  const random = createRandom(7);
  for (let i = 0; i < 200; i++) {
    const n = 2 + random.int(60);
    let e = 0;
    const x = Float64Array.from({ length: n }, () => (e = 0.8 * e + random.normal()));
    assert.equal(lag1Autocorrelation(x), autocorrelation(x, 1)![1], `series ${i} (n=${n})`);
  }
  assert.equal(lag1Autocorrelation(Float64Array.of(3, 3, 3)), null);
  assert.equal(lag1Autocorrelation(Float64Array.of(3)), null);
});
