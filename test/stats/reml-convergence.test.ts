// REML's tau^2 on runs whose Fisher steps land alternately just inside each end of the bracket.
// These 30 Fisher z values and variances are one pair of the analyze-scale bench's 30 x 20 x 200
// study (bench/analyze-scale.ts): the robustness table's meta-analysis threw "REML did not converge
// in 1000 iterations" there, which stopped the whole analysis. The estimate is checked against the
// maximum of the restricted log-likelihood found by golden-section search, independently of the
// scoring iteration.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomEffectsMeta } from '../../src/stats/index.ts';

const y = [
  0.25242522786768334, 0.23298809934394066, 0.32164848989658323, 0.18330123840469184, 0.26209792367720247,
  0.061829673916854296, 0.044229502560460515, 0.319847272866578, -0.04408552594620151, 0.25683298741496186,
  0.11891848264784997, 0.1964214105428105, -0.004857774696779284, 0.20989821519949386, -0.10362138225231438,
  -0.010952045552215578, 0.1828732575383402, 0.014148100464742873, 0.18272717757779827, 0.20680135484321993,
  0.21683263908027675, 0.2726522824706601, 0.27561193751697766, 0.13395869694082818, 0.2492032564983967,
  0.06823537773276524, 0.17497654181150665, -0.020172878308116385, 0.1911429357821624, 0.1562231168253243,
];
const v = [
  0.02310108549326666, 0.15713689656763738, 0.1266534528337559, 0.10378994073335218, 0.18404623337763357,
  0.19942267920281487, 0.009688912148879743, 0.1138935778033992, 0.14086923083970226, 0.013458530650478608,
  0.16907649252929527, 0.09481002461195775, 0.12264451926356894, 0.2037664256282666, 0.05509975665309007,
  0.006383904030959903, 0.08119880650283094, 0.01909388658489304, 0.06501936206910021, 0.16038329011632396,
  0.20321066684671754, 0.19492414801033864, 0.02450099341820231, 0.12742264349473087, 0.20395004326923388,
  0.13284938769259083, 0.09211783931385832, 0.021000326816373836, 0.11039910259375939, 0.017735217647134108,
];

/** The restricted log-likelihood of the intercept-only random-effects model at tau^2 (up to a constant). */
function restrictedLogLik(t: number): number {
  let sw = 0, swy = 0, logdet = 0;
  for (let i = 0; i < y.length; i++) { const w = 1 / (v[i] + t); sw += w; swy += w * y[i]; logdet += Math.log(v[i] + t); }
  const mu = swy / sw;
  let rss = 0;
  for (let i = 0; i < y.length; i++) rss += (y[i] - mu) ** 2 / (v[i] + t);
  return -0.5 * (logdet + Math.log(sw) + rss);
}

function goldenMax(f: (t: number) => number, lo: number, hi: number): number {
  const g = (Math.sqrt(5) - 1) / 2;
  let c = hi - g * (hi - lo), d = lo + g * (hi - lo);
  for (let i = 0; i < 200; i++) {
    if (f(c) > f(d)) hi = d; else lo = c;
    c = hi - g * (hi - lo); d = lo + g * (hi - lo);
  }
  return (lo + hi) / 2;
}

test('REML converges where Fisher scoring oscillates across the root, at the restricted likelihood maximum', () => {
  const fit = randomEffectsMeta(y, v, { estimator: 'REML' });
  const reference = goldenMax(restrictedLogLik, 0, 1e-3);
  assert.ok(reference > 1e-6 && reference < 1e-4, `the maximum is interior and small: ${reference}`);
  assert.ok(Math.abs(fit.tau2! - reference) <= 1e-9, `REML ${fit.tau2} against the likelihood's maximum ${reference}`);
});
