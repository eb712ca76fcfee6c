// The batch path (partial-correlation-batch.ts) against the single-pair reference
// (partial-correlation.ts) on random inputs: every field of every pair's result must agree, the
// null results with the same reason (in the reference's order of checks) and the defined ones to
// 1e-12. The inputs are drawn to reach every branch: plateaus (repeated rows), constant series,
// series explained by the covariates, too few rows, a spline that cannot be fitted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createRandom, partialCorrelation, partialCorrelationPairs, type PartialOptions, type PartialResult, type Random,
} from '../../src/stats/index.ts';

const TOL = 1e-12;

type Kind = 'noise' | 'plateau' | 'constant' | 'explained' | 'copy';
const KINDS: Kind[] = ['noise', 'noise', 'noise', 'plateau', 'constant', 'explained', 'copy'];

function drawCase(random: Random): { series: Record<string, Float64Array>; covariates: Float64Array[]; opts: PartialOptions } {
  const spline = random.uniform() < 0.3;
  const n = 4 + random.int(spline ? 30 : 25);
  const k = spline ? 1 : random.int(4);
  const opts: PartialOptions = {
    method: random.uniform() < 0.5 ? 'pearson' : 'spearman',
    residualiser: spline ? 'spline' : 'linear',
    inference: random.uniform() < 0.5 ? 'naive' : 'effective-n',
    ...(spline && random.uniform() < 0.5 ? { splineBasis: 3 + random.int(5) } : {}),
  };
  // a saturating curve, sometimes held on few levels (plateaus; on two, a spline cannot be fitted)
  const levels = random.uniform() < 0.2 ? 1 + random.int(5) : 0;
  const covariates = Array.from({ length: k }, (_, j) => Float64Array.from({ length: n }, (_, t) => {
    const v = 1 - Math.exp(-(3 + j) * t / n) + 0.05 * random.normal();
    return levels ? Math.round(v * levels) / levels : v;
  }));
  const series: Record<string, Float64Array> = {};
  const m = 2 + random.int(5);
  for (let s = 0; s < m; s++) {
    const kind = KINDS[random.int(KINDS.length)];
    const name = `s${s}`;
    const loading = random.normal();
    const base = (t: number) => covariates.reduce((sum, c) => sum + loading * c[t], 0);
    if (kind === 'constant') series[name] = new Float64Array(n).fill(0.5);
    else if (kind === 'explained') series[name] = Float64Array.from({ length: n }, (_, t) => 0.2 + base(t));
    else if (kind === 'copy' && s > 0) series[name] = Float64Array.from(series[`s${random.int(s)}`]);
    else {
      let e = 0;
      const phi = random.uniform() * 0.95;
      series[name] = Float64Array.from({ length: n }, (_, t) => {
        e = phi * e + random.normal();
        const v = base(t) + 0.3 * e;
        return kind === 'plateau' ? Math.round(v * 2) / 2 : v;
      });
    }
  }
  return { series, covariates, opts };
}

/** The batch result with the reference's names for the pair ('x' and 'y'). */
function asReference(result: PartialResult, a: string, b: string): PartialResult {
  if (result.reason === undefined) return result;
  return { ...result, reason: result.reason.replace(`'${a}'`, "'x'").replace(`'${b}'`, "'y'") };
}

function assertSame(got: PartialResult, want: PartialResult, what: string): number {
  assert.equal(got.reason, want.reason, `${what}: reason`);
  assert.equal(got.r === null, want.r === null, `${what}: r null`);
  assert.equal(got.n, want.n, `${what}: n`);
  assert.equal(got.distinct, want.distinct, `${what}: distinct`);
  assert.equal(got.phi === undefined, want.phi === undefined, `${what}: phi present`);
  const pairs: [number | null | undefined, number | null | undefined, string][] = [
    [got.r, want.r, 'r'], [got.p, want.p, 'p'], [got.n_eff, want.n_eff, 'nEff'], [got.df, want.df, 'df'],
    [got.ci95?.[0], want.ci95?.[0], 'ci95 low'], [got.ci95?.[1], want.ci95?.[1], 'ci95 high'],
    [got.phi?.[0], want.phi?.[0], 'phi x'], [got.phi?.[1], want.phi?.[1], 'phi y'],
  ];
  let worst = 0;
  for (const [g, w, field] of pairs) {
    if (w === null || w === undefined) { assert.equal(g, w, `${what}: ${field}`); continue; }
    assert.ok(typeof g === 'number', `${what}: ${field} is ${g}, the reference's ${w}`);
    const diff = Math.abs(g - w);
    assert.ok(diff <= TOL, `${what}: ${field} ${g} vs the reference's ${w} (diff ${diff.toExponential(2)})`);
    worst = Math.max(worst, diff);
  }
  return worst;
}

test('the batch path gives the reference\'s result for every pair, on random inputs', () => {
  const random = createRandom(20261201);
  const seen = new Map<string, number>();
  let worst = 0, compared = 0;
  for (let c = 0; c < 400; c++) {
    const { series, covariates, opts } = drawCase(random);
    const names = Object.keys(series).sort();
    // every pair in sorted order, then the same pairs named explicitly in another order, each reversed
    const explicit = names.flatMap((a, i) => names.slice(i + 1).map((b) => [b, a] as const)).reverse();
    const batches = [partialCorrelationPairs(series, covariates, opts), partialCorrelationPairs(series, covariates, opts, explicit)];
    assert.deepEqual(batches[1].map((p) => [p.a, p.b]), explicit, 'explicit pairs come back in the order asked for');
    for (const batch of batches) {
      for (const { a, b, result } of batch) {
        const want = partialCorrelation(series[a], series[b], covariates, opts);
        const what = `case ${c} ${JSON.stringify(opts)} n=${series[a].length} (${a}, ${b})`;
        worst = Math.max(worst, assertSame(asReference(result, a, b), want, what));
        compared++;
        const kind = want.r !== null ? 'defined' : want.reason!.replace(/'[^']*'|[\d.]+/g, '_').slice(0, 40);
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
      }
    }
  }
  // the draw reaches every branch (so that the comparison cannot pass on defined pairs alone)
  const reasons = [...seen.keys()].join('\n');
  const branches = [
    'defined', 'series _ is constant', 'residuals of _ are constant', 'n=_ too few', 'only _ distinct checkpoint',
    'effective sample size _', 'the control variable has _ distinct',
  ];
  for (const branch of branches) {
    assert.ok([...seen.keys()].some((k) => k.startsWith(branch)), `no pair reached '${branch}'; seen:\n${reasons}`);
  }
  assert.ok((seen.get('defined') ?? 0) > 1000, `only ${seen.get('defined')} defined pairs compared`);
  assert.ok(compared > 3000 && worst <= TOL);
});

test('explicit pairs must name given series', () => {
  const opts: PartialOptions = { method: 'pearson', residualiser: 'linear' };
  const series = { a: [1, 2, 3, 4, 5, 7], b: [2, 1, 4, 3, 6, 5] };
  assert.throws(() => partialCorrelationPairs(series, [], opts, [['a', 'c']]), /'c', which is not among the 2 series given/);
  assert.deepEqual(partialCorrelationPairs(series, [], opts, []), []);
});
