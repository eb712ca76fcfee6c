import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { partialCorrelation, partialCorrelationPairs, type PartialResult } from '../../src/stats/index.ts';
import { assertClose, assertRelClose, golden } from './helpers.ts';

interface Expected { n: number; r: number; df: number; p: number; ci95: [number, number] }
interface PartialCase { name: string; x: number[]; y: number[]; covariates: number[][]; pearson: Expected; spearman: Expected }
const cases = golden<{ partial: PartialCase[] }>('correlation.json').partial;

function check(got: PartialResult, want: Expected, what: string): void {
  assert.equal(got.n, want.n, `${what} n`);
  assert.equal(got.df, want.df, `${what} df`);
  assertClose(got.r, want.r, 1e-9, `${what} r`);
  // p-values can be tiny (1e-11 here): compare relatively
  assertRelClose(got.p, want.p, 1e-9, `${what} p`);
  assert.ok(got.ci95, `${what} ci95`);
  assertClose(got.ci95![0], want.ci95[0], 1e-9, `${what} ci low`);
  assertClose(got.ci95![1], want.ci95[1], 1e-9, `${what} ci high`);
  assert.equal(got.reason, undefined);
}

test('partialCorrelation matches pingouin.partial_corr (golden from numpy/scipy/statsmodels)', () => {
  for (const c of cases) {
    for (const method of ['pearson', 'spearman'] as const) {
      check(partialCorrelation(c.x, c.y, c.covariates, { method, residualiser: 'linear' }), c[method], `${c.name} ${method}`);
    }
  }
});

test('partialCorrelationPairs gives the same results, pairs in alphabetical order', () => {
  const c = cases.find((k) => k.name === 'n50_k2')!;
  const z = c.x.map((v, i) => v * 0.3 - c.y[i]);
  const series = { zeta: z, beta: c.y, alpha: c.x };
  for (const method of ['pearson', 'spearman'] as const) {
    const pairs = partialCorrelationPairs(series, c.covariates, { method, residualiser: 'linear' });
    assert.deepEqual(pairs.map((p) => `${p.a}-${p.b}`), ['alpha-beta', 'alpha-zeta', 'beta-zeta']);
    check(pairs[0].result, c[method], `pairs ${method}`);
    for (const p of pairs) {
      const single = partialCorrelation(series[p.a as keyof typeof series], series[p.b as keyof typeof series], c.covariates,
        { method, residualiser: 'linear' });
      assertClose(p.result.r, single.r!, 1e-12, `${p.a}-${p.b} r`);
      assertRelClose(p.result.p, single.p!, 1e-9, `${p.a}-${p.b} p`);
    }
  }
});

test('no covariates: the plain correlation with df = n - 2', () => {
  const c = cases[0];
  const res = partialCorrelation(c.x, c.y, [], { method: 'pearson', residualiser: 'linear' });
  assert.equal(res.df, c.x.length - 2);
  assert.ok(res.r !== null && res.p !== null && res.p > 0 && res.p < 1);
});

test('a constant series, or one explained by the covariates, gives null r with a reason', () => {
  const cov = [[1, 2, 3, 4, 5, 6, 7, 8]];
  const y = [2, 1, 4, 3, 6, 5, 8, 9];
  const constant = partialCorrelation([3, 3, 3, 3, 3, 3, 3, 3], y, cov, { method: 'pearson', residualiser: 'linear' });
  assert.equal(constant.r, null);
  assert.equal(constant.p, null);
  assert.equal(constant.ci95, null);
  assert.match(constant.reason!, /series 'x' is constant/);
  const explained = partialCorrelation(cov[0].map((v) => 2 * v + 1), y, cov, { method: 'pearson', residualiser: 'linear' });
  assert.equal(explained.r, null);
  assert.match(explained.reason!, /residuals of 'x' are constant/);
  const pairs = partialCorrelationPairs({ a: y, b: [5, 5, 5, 5, 5, 5, 5, 5], c: y.map((v) => -v * v) }, cov,
    { method: 'spearman', residualiser: 'linear' });
  assert.equal(pairs[0].result.r, null);
  assert.match(pairs[0].result.reason!, /series 'b' is constant/);
  assert.ok(pairs[1].result.r !== null, 'a-c is defined');
});

test('too few observations for the covariates gives null with a reason', () => {
  const four = [1, 3, 2, 4];
  const res = partialCorrelation(four, [2, 1, 4, 3], [[1, 2, 3, 4], [1, 4, 9, 15]], { method: 'pearson', residualiser: 'linear' });
  assert.equal(res.r, null);
  assert.equal(res.n, 4);
  assert.equal(res.df, 0);
  assert.match(res.reason!, /n=4 too few for k=2/);
  const pairs = partialCorrelationPairs({ a: four, b: [2, 1, 4, 3] }, [[1, 2, 3, 4]], { method: 'pearson', residualiser: 'linear' });
  assert.match(pairs[0].result.reason!, /n=4 too few for k=1/);
});

test('a constant or duplicated covariate is harmless (as numpy pinv in pingouin)', () => {
  const c = cases.find((k) => k.name === 'n20_k1')!;
  const dup = partialCorrelation(c.x, c.y, [c.covariates[0], c.covariates[0].map((v) => 2 * v)], { method: 'pearson', residualiser: 'linear' });
  assertClose(dup.r, c.pearson.r, 1e-9, 'duplicated covariate r');
  assert.equal(dup.df, c.pearson.df - 1, 'df still counts every covariate');
});

test('perfect partial correlation gives r = 1, p = 0, never NaN', () => {
  const cov = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const x = [1, 4, 2, 8, 5, 7, 3, 9, 6, 0];
  const res = partialCorrelation(x, x.map((v, i) => 3 * v + cov[i]), [cov], { method: 'pearson', residualiser: 'linear' });
  assertClose(res.r, 1, 1e-12, 'r');
  assert.ok(res.p !== null && res.p < 1e-12);
  assert.ok(res.ci95!.every((v) => Number.isFinite(v)));
});

test('bad inputs throw UserError: lengths, NaN with its index, spline with two covariates', () => {
  const opts = { method: 'pearson', residualiser: 'linear' } as const;
  assert.throws(() => partialCorrelation([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [[1, 2, 3]], opts),
    (e: Error) => e instanceof UserError && /covariates\[0\]/.test(e.message));
  assert.throws(() => partialCorrelation([1, 2, 3, 4, 5], [1, 2, NaN, 4, 5], [], opts), /'y'.*index 2/);
  assert.throws(() => partialCorrelation([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [[1, 2, 3, NaN, 5]], opts), /'covariates\[0\]'.*index 3/);
  assert.throws(() => partialCorrelation([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [], { method: 'kendall' as 'pearson', residualiser: 'linear' }),
    /'pearson' or 'spearman'/);
  assert.throws(() => partialCorrelationPairs({ a: [1, 2, 3], b: [1, 2] }, [], opts), /'b' has 2 values/);
  assert.throws(() => partialCorrelationPairs({ a: [1, 2, 3, 4, 5, 6], b: [1, 2, 3, 4, 5, NaN] }, [], opts), /'b'.*index 5/);
  assert.throws(
    () => partialCorrelation([1, 2, 3, 4, 5, 6], [2, 1, 3, 4, 6, 5], [[1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 5, 6]],
      { method: 'pearson', residualiser: 'spline' }),
    (e: Error) => e instanceof UserError && /exactly one control variable, got 2/.test(e.message),
  );
});
