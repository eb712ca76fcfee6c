// The one-column weighted fit (every pair's intercept-only meta-analysis) against the general
// p-column fit it shortcuts: every field equal to the last bit (Object.is: a zero's sign too), on
// random within-run variances, effects, between-run variances and columns, and the same error on a
// singular design; and weightedRss (the Q statistic alone) against the fit's rss, with one and with several columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { weightedFit, weightedFitAnyColumns, weightedRss } from '../../src/stats/meta-wls.ts';
import { createRandom } from '../../src/stats/index.ts';

test('weightedFit with one column equals the general fit bit for bit', () => {
  const random = createRandom(5);
  for (let c = 0; c < 5000; c++) {
    const k = 1 + random.int(40);
    const kind = random.int(4);
    const x = Float64Array.from({ length: k }, () => (kind === 0 ? 1 : kind === 1 ? random.normal() : kind === 2 ? Math.round(random.normal()) : -0));
    const y = Float64Array.from({ length: k }, () => (random.uniform() < 0.1 ? (random.uniform() < 0.5 ? 0 : -0) : random.normal()));
    const v = Float64Array.from({ length: k }, () => 10 ** (-3 + 3 * random.uniform()));
    const tau2 = random.uniform() < 0.3 ? 0 : 10 ** (-4 + 4 * random.uniform());
    const design = { k, p: 1, x };
    for (const second of [false, true]) {
      let fast: unknown, general: unknown;
      try { fast = weightedFit(y, v, tau2, design, second); } catch (e) { fast = (e as Error).message; }
      try { general = weightedFitAnyColumns(y, v, tau2, design, second); } catch (e) { general = (e as Error).message; }
      if (typeof general === 'string') { assert.equal(fast, general, `case ${c}`); continue; }
      const f = fast as Record<string, unknown>, g = general as Record<string, unknown>;
      for (const key of Object.keys(g)) {
        const a = f[key], b = g[key];
        if (b instanceof Float64Array) {
          assert.ok(a instanceof Float64Array && a.length === b.length && b.every((z, i) => Object.is(z, a[i])), `case ${c} ${key}: ${a} vs ${b}`);
        } else assert.ok(Object.is(a, b), `case ${c} ${key}: ${a} vs ${b}`);
      }
    }
  }
});

test('weightedRss equals the fit\'s rss bit for bit, and throws as it does', () => {
  const random = createRandom(6);
  for (let c = 0; c < 5000; c++) {
    const k = 1 + random.int(40), p = c % 4 === 3 ? 2 : 1;
    const kind = random.int(4);
    const column = () => (kind === 0 ? 1 : kind === 1 ? random.normal() : kind === 2 ? Math.round(random.normal()) : -0);
    const x = Float64Array.from({ length: k * p }, (_, i) => (p === 2 && i % 2 === 0 ? 1 : column()));
    const y = Float64Array.from({ length: k }, () => (random.uniform() < 0.1 ? (random.uniform() < 0.5 ? 0 : -0) : random.normal()));
    const v = Float64Array.from({ length: k }, () => 10 ** (-3 + 3 * random.uniform()));
    const tau2 = random.uniform() < 0.3 ? 0 : 10 ** (-4 + 4 * random.uniform());
    const design = { k, p, x };
    let fast: unknown, fit: unknown;
    try { fast = weightedRss(y, v, tau2, design); } catch (e) { fast = (e as Error).message; }
    try { fit = weightedFit(y, v, tau2, design).rss; } catch (e) { fit = (e as Error).message; }
    assert.ok(Object.is(fast, fit), `case ${c}: ${fast} vs ${fit}`);
  }
});
