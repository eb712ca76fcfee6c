// The random-effects meta-analysis and meta-regression against R's metafor
// (golden/make_meta_golden.R: rma, confint, predict with tight tolerances) and statsmodels'
// combine_effects (golden/make_meta_golden_statsmodels.py: DL and Paule-Mandel), to 1e-6. The
// prediction interval is Higgins-Thompson-Spiegelhalter's with k - 2 degrees of freedom, not
// predict.rma's k - 1: golden/make_prediction_interval.py builds it from metafor's mu, se and tau^2
// with scipy's t quantile.
// Every case is checked with every estimator (REML, DL, PM), with and without Hartung-Knapp.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMetaRegression, metaRegression, randomEffectsMeta, type Tau2Estimator } from '../../src/stats/index.ts';
import { assertClose, assertRelClose, golden } from './helpers.ts';

const TOL = 1e-6;

interface Fit {
  estimator: Tau2Estimator; hartung_knapp: boolean;
  estimate: number; se: number; statistic: number; p: number; ci: [number, number]; df: number | null;
  tau2: number; tau2_ci: [number, number]; i2: number; i2_ci: [number, number]; h2: number;
  q: number; q_df: number; q_p: number; pi: [number, number];
}
interface Case { name: string; yi: number[]; vi: number[]; fits: Fit[] }
interface RegFit {
  estimator: Tau2Estimator; hartung_knapp: boolean;
  coefficients: { name: string; estimate: number; se: number; statistic: number; p: number; ci: [number, number] }[];
  qm: number; qm_df1: number; qm_df2: number | null; qm_p: number;
  tau2: number; tau2_ci: [number, number]; i2: number; qe: number; qe_df: number; qe_p: number; r2: number | null; tau2_re: number;
  levels?: { level: string; estimate: number; se: number; ci: [number, number] }[];
}
interface Regression { name: string; kind: 'categorical' | 'numeric'; yi: number[]; vi: number[]; moderator: (string | number)[]; fits: RegFit[] }
interface SmFit {
  estimator: 'DL' | 'PM'; converged: boolean; tau2: number; estimate: number; se: number; ci: [number, number]; se_hksj: number;
  ci_hksj: [number, number]; q: number; i2: number;
}

const meta = golden<{ cases: Case[]; regressions: Regression[] }>('meta.json');
const intervals = golden<{ cases: { name: string; fits: { estimator: Tau2Estimator; hartung_knapp: boolean; pi: [number, number] }[] }[] }>(
  'prediction-interval.json');
const intervalOf = (c: Case, f: Fit) => intervals.cases.find((x) => x.name === c.name)!.fits
  .find((x) => x.estimator === f.estimator && x.hartung_knapp === f.hartung_knapp)!.pi;
const sm = golden<{ cases: { name: string; fits: SmFit[] }[] }>('meta_statsmodels.json');
const label = (c: { name: string }, f: { estimator: string; hartung_knapp: boolean }) => `${c.name} ${f.estimator}${f.hartung_knapp ? '+HK' : ''}`;

test('pooled effect, tau^2 and its Q-profile CI, I^2, H^2 and Q equal metafor, the prediction interval HTS\'s on them (1e-6)', () => {
  let checked = 0;
  for (const c of meta.cases) {
    for (const f of c.fits) {
      const what = label(c, f);
      const got = randomEffectsMeta(c.yi, c.vi, { estimator: f.estimator, hartungKnapp: f.hartung_knapp });
      assert.equal(got.k, c.yi.length);
      assertClose(got.tau2, f.tau2, TOL, `${what} tau2`);
      assertClose(got.estimate, f.estimate, TOL, `${what} estimate`);
      assertClose(got.se, f.se, TOL, `${what} se`);
      assertClose(got.statistic, f.statistic, TOL, `${what} statistic`);
      assertRelClose(got.p, f.p, TOL, `${what} p`);
      assertClose(got.ci[0], f.ci[0], TOL, `${what} ci low`);
      assertClose(got.ci[1], f.ci[1], TOL, `${what} ci high`);
      assert.equal(got.df, f.hartung_knapp ? f.df : null, `${what} df`);
      assertClose(got.tau2_ci![0], f.tau2_ci[0], TOL, `${what} tau2 ci low`);
      assertClose(got.tau2_ci![1], f.tau2_ci[1], TOL, `${what} tau2 ci high`);
      assertClose(got.i2, f.i2, TOL, `${what} I2`);
      assertClose(got.i2_ci![0], f.i2_ci[0], TOL, `${what} I2 ci low`);
      assertClose(got.i2_ci![1], f.i2_ci[1], TOL, `${what} I2 ci high`);
      assertClose(got.h2, f.h2, TOL, `${what} H2`);
      assertClose(got.q, f.q, TOL, `${what} Q`);
      assert.equal(got.q_df, f.q_df);
      assertRelClose(got.q_p, f.q_p, TOL, `${what} Q p`);
      if (c.yi.length >= 3) {
        const pi = intervalOf(c, f);
        assertClose(got.prediction_interval![0], pi[0], TOL, `${what} PI low`);
        assertClose(got.prediction_interval![1], pi[1], TOL, `${what} PI high`);
        // wider than predict.rma's (k - 1 degrees of freedom, or z)
        assert.ok(got.prediction_interval![1] - got.prediction_interval![0] > f.pi[1] - f.pi[0], `${what}: wider than metafor's`);
      } else {
        assert.equal(got.prediction_interval, null, `${what}: no prediction interval from two runs`);
        assert.match(got.notes.join(' '), /two runs/);
      }
      checked++;
    }
  }
  assert.equal(checked, meta.cases.length * 6);
});

test('DL and Paule-Mandel equal statsmodels combine_effects, Hartung-Knapp its HKSJ interval (1e-6)', () => {
  let compared = 0;
  for (const c of sm.cases) {
    const input = meta.cases.find((m) => m.name === c.name)!;
    for (const f of c.fits) {
      const what = `${c.name} ${f.estimator} (statsmodels)`;
      if (f.tau2 < 0) {
        // statsmodels leaves DL's tau^2 untruncated; genstudy, like metafor, truncates at 0
        assert.equal(randomEffectsMeta(input.yi, input.vi, { estimator: f.estimator }).tau2, 0, what);
        continue;
      }
      if (!f.converged) {
        // statsmodels' PM iteration overshot the root and stopped at 0: the root is positive
        assert.ok(randomEffectsMeta(input.yi, input.vi, { estimator: f.estimator }).tau2! > 0, what);
        continue;
      }
      const got = randomEffectsMeta(input.yi, input.vi, { estimator: f.estimator });
      assertClose(got.tau2, f.tau2, TOL, `${what} tau2`);
      assertClose(got.estimate, f.estimate, TOL, `${what} estimate`);
      assertClose(got.se, f.se, TOL, `${what} se`);
      assertClose(got.ci[0], f.ci[0], TOL, `${what} ci low`);
      assertClose(got.ci[1], f.ci[1], TOL, `${what} ci high`);
      assertClose(got.q, f.q, TOL, `${what} Q`);
      if (f.estimator === 'DL') assertClose(got.i2, f.i2, TOL, `${what} I2`);
      const hk = randomEffectsMeta(input.yi, input.vi, { estimator: f.estimator, hartungKnapp: true });
      assertClose(hk.se, f.se_hksj, TOL, `${what} HK se`);
      assertClose(hk.ci[0], f.ci_hksj[0], TOL, `${what} HK ci low`);
      assertClose(hk.ci[1], f.ci_hksj[1], TOL, `${what} HK ci high`);
      compared++;
    }
  }
  assert.ok(compared >= 8, `compared ${compared} fits`);
});

test('meta-regression on a categorical or numeric moderator equals metafor rma(mods = ~ m) (1e-6)', () => {
  for (const r of meta.regressions) {
    const moderator = r.kind === 'numeric'
      ? { kind: 'numeric' as const, values: r.moderator as number[] }
      : { kind: 'categorical' as const, values: r.moderator as string[] };
    for (const f of r.fits) {
      const what = label(r, f);
      const got = metaRegression(r.yi, r.vi, moderator, { estimator: f.estimator, hartungKnapp: f.hartung_knapp });
      assert.ok(isMetaRegression(got), `${what}: ${JSON.stringify(got)}`);
      assertClose(got.tau2, f.tau2, TOL, `${what} tau2`);
      assert.equal(got.coefficients.length, f.coefficients.length);
      f.coefficients.forEach((e, j) => {
        const g = got.coefficients[j];
        assertClose(g.estimate, e.estimate, TOL, `${what} ${e.name} estimate`);
        assertClose(g.se, e.se, TOL, `${what} ${e.name} se`);
        assertClose(g.statistic, e.statistic, TOL, `${what} ${e.name} statistic`);
        assertRelClose(g.p, e.p, TOL, `${what} ${e.name} p`);
        assertClose(g.ci[0], e.ci[0], TOL, `${what} ${e.name} ci low`);
        assertClose(g.ci[1], e.ci[1], TOL, `${what} ${e.name} ci high`);
      });
      assertClose(got.test.statistic, f.qm, TOL, `${what} QM`);
      assert.equal(got.test.df1, f.qm_df1);
      assert.equal(got.test.df2, f.hartung_knapp ? f.qm_df2 : null);
      assert.equal(got.test.distribution, f.hartung_knapp ? 'F' : 'chi-square');
      assertRelClose(got.test.p, f.qm_p, TOL, `${what} QM p`);
      assertClose(got.tau2_ci[0], f.tau2_ci[0], TOL, `${what} tau2 ci low`);
      assertClose(got.tau2_ci[1], f.tau2_ci[1], TOL, `${what} tau2 ci high`);
      assertClose(got.i2, f.i2, TOL, `${what} I2`);
      assertClose(got.qe, f.qe, TOL, `${what} QE`);
      assert.equal(got.qe_df, f.qe_df);
      assertRelClose(got.qe_p, f.qe_p, TOL, `${what} QE p`);
      // metafor's R^2 is 0 when the model without the moderator has tau^2 = 0; genstudy says undefined
      if (f.tau2_re > 1e-8) assertClose(got.r2, f.r2!, TOL, `${what} R2`);
      else assert.equal(got.r2, null, `${what} R2`);
      if (f.levels) {
        assert.deepEqual(got.levels!.map((l) => l.level), f.levels.map((l) => l.level));
        f.levels.forEach((e, j) => {
          const g = got.levels![j];
          assertClose(g.estimate, e.estimate, TOL, `${what} level ${e.level} estimate`);
          assertClose(g.se, e.se, TOL, `${what} level ${e.level} se`);
          assertClose(g.ci[0], e.ci[0], TOL, `${what} level ${e.level} ci low`);
          assertClose(g.ci[1], e.ci[1], TOL, `${what} level ${e.level} ci high`);
        });
      }
    }
  }
});

test('one run: its own estimate, and a note of what cannot be estimated', () => {
  const got = randomEffectsMeta([0.4], [0.05]);
  assert.equal(got.k, 1);
  assert.equal(got.estimate, 0.4);
  assertClose(got.se, Math.sqrt(0.05), 1e-15, 'se');
  for (const field of ['tau2', 'tau2_ci', 'i2', 'q', 'q_p', 'prediction_interval'] as const) assert.equal(got[field], null, field);
  assert.match(got.notes.join(' '), /one run.*between-run variance.*prediction interval/);
});

test('a meta-regression without a run to spare, or on a constant moderator, says why instead of fitting', () => {
  const two = metaRegression([0.1, 0.5], [0.05, 0.05], { kind: 'categorical', values: ['a', 'b'] });
  assert.ok(!isMetaRegression(two));
  assert.match(two.notes[0], /2 runs for 2 coefficients/);
  const constant = metaRegression([0.1, 0.5, 0.3], [0.05, 0.05, 0.05], { kind: 'categorical', values: ['a', 'a', 'a'] });
  assert.ok(!isMetaRegression(constant));
  assert.match(constant.notes[0], /one value/);
  assert.throws(() => metaRegression([0.1, 0.5, 0.3], [0.05, 0.05, 0.05], { kind: 'numeric', values: [2, 2, 2] }), /singular/);
});

test('bad inputs are errors naming what is wrong', () => {
  assert.throws(() => randomEffectsMeta([0.1, 0.2], [0.05]), /2 estimates but 1 variances/);
  assert.throws(() => randomEffectsMeta([0.1, 0.2], [0.05, 0]), /variance 1 is 0/);
  assert.throws(() => randomEffectsMeta([], []), /no estimates/);
  assert.throws(() => randomEffectsMeta([0.1, Number.NaN], [0.05, 0.05]), /non-finite/);
  assert.throws(() => randomEffectsMeta([0.1, 0.2], [0.05, 0.05], { estimator: 'ML' as never }), /REML, DL, PM/);
});
