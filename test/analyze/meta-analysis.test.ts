// analyze's meta-analysis across runs: runs simulated with a known truth per pair (the same
// partial correlation in every run, opposite signs in two model families, none), the wiring
// (each run's z and variance into stats/), the verdicts and headline, the moderator, and the CLI's
// JSON and CSV.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { fisherZVariance, runVarianceFactor } from '../../src/analyze/fisher-z.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { createRandom, randomEffectsMeta } from '../../src/stats/index.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

/**
 * One run of n checkpoints: control c rises; OOD sets a, b, d, e are c plus white noise, with
 * partial correlation `same` between a and b (every run), `family` between a and d (its sign set by
 * the run's family), and 0 between e and the rest.
 */
function run(name: string, family: 'pos' | 'neg', seed: number, n = 40, same = 0.6, familyRho = 0.6): RunSeries {
  const rnd = createRandom(seed);
  const c = Float64Array.from({ length: n }, (_, t) => 0.5 + 0.3 * (1 - Math.exp(-t / 10)));
  const a = new Float64Array(n), b = new Float64Array(n), d = new Float64Array(n), e = new Float64Array(n);
  const rho = family === 'pos' ? familyRho : -familyRho;
  for (let t = 0; t < n; t++) {
    const u = rnd.normal(), v = rnd.normal(), w = rnd.normal(), z = rnd.normal();
    a[t] = c[t] + 0.02 * u;
    b[t] = 0.8 * c[t] + 0.02 * (same * u + Math.sqrt(1 - same * same) * v);
    d[t] = 0.6 * c[t] + 0.02 * (rho * u + Math.sqrt(1 - rho * rho) * w);
    e[t] = 0.7 * c[t] + 0.02 * z;
  }
  return {
    run: name, steps: Array.from({ length: n }, (_, t) => t * 100),
    values: new Map([['id', c], ['a', a], ['b', b], ['d', d], ['e', e]]),
    attributes: { family, size: String(1 + (seed % 7)) }, incompleteSteps: [],
  };
}

const opts = (extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions => ({ ...DEFAULT_OPTIONS, control: 'id', ...extra });
/**
 * For the tests that are not about them: no robustness table (8 more analyses of every run), and the
 * calibration (most of an analysis's time) on fewer simulations or none. Only the first test and the
 * CLI's run the defaults.
 */
const noRobustness = { robustness: false } as const;
const FEWER_SIMULATIONS = 50;
const families = (k: number) => Array.from({ length: k }, (_, i) => run(`m${i}`, i % 2 === 0 ? 'pos' : 'neg', 100 + i));
const pairOf = (meta: ReturnType<typeof analyzeRuns>['meta'], a: string, b: string) => meta.pairs.find((p) => p.a === a && p.b === b)!;

test('a relation present in every run generalises, one whose sign depends on the model depends on the model, ' +
  'none is inconclusive with 8 runs of 40', () => {
  const result = analyzeRuns(families(8), opts());
  const { meta } = result;
  assert.equal(meta.estimator, 'REML');
  assert.equal(meta.hartung_knapp, true, 'Hartung-Knapp by default');
  assert.equal(meta.pairs.length, 6);
  const ab = pairOf(meta, 'a', 'b');
  assert.equal(ab.verdict, 'generalises', JSON.stringify(ab));
  assert.ok(ab.r! > 0.4 && ab.prediction95![0] > 0);
  const ad = pairOf(meta, 'a', 'd');
  assert.equal(ad.verdict, 'depends on the model', JSON.stringify(ad));
  assert.match(ad.why, /^runs differ \(Q holm-adjusted p .*\), 95% prediction interval \[-0\.\d+, 0\.\d+\] spans both signs$/);
  assert.ok(ad.q_p! < 1e-6 && ad.i2! > 0.8);
  assert.ok(ad.prediction95![0] < -0.3 && ad.prediction95![1] > 0.3, 'the next model may show either sign');
  for (const other of ['a', 'b', 'd']) {
    const p = meta.pairs.find((x) => [x.a, x.b].includes('e') && [x.a, x.b].includes(other))!;
    // no relation, but 8 runs of 40 checkpoints cannot show it is below 0.1 everywhere
    assert.equal(p.verdict, 'inconclusive', JSON.stringify(p));
    assert.match(p.why, /^pooled r -?0\.\d+ (not significant .*wider than ±0\.1|significant before, not after correcting for 6 pairs .*)$/);
  }
  assert.equal(result.headline.sentence,
    'Across 8 runs, of 6 pairs of OOD test sets (partial correlations with "id" regressed out, pooled over runs): ' +
    '1 generalises (a–b + (holds under 8 of 8)), 2 depend on the model (a–d (holds under 8 of 8), b–d (holds under 8 of 8)), ' +
    '0 are negligible everywhere (|r| < 0.1) and 3 are inconclusive. ' +
    'None of the 3 pairs that generalise or depend on the model is fragile (each holds under at least half of the analysis choices). ' +
    // the control is a proportion whose noise no input gives (its run-level warning): the caveat follows
    'Caveat: the control is a score measured with sampling noise, and its correction treats each checkpoint\'s error as independent; ' +
    'on a fixed in-domain test set (the same examples at every checkpoint) the errors persist, and in simulation some null pair was ' +
    'then called "depends on the model" in about half of studies of 28 pairs: read that verdict as unconfirmed, ' +
    'or give the control\'s per-example results (a genstudy store, lm-eval\'s --log_samples files, --example-results), from which their covariance ' +
    'is estimated (docs/analyze.md, "fixed test sets").');
  assert.equal(result.headline.fragile, 0);
  // b-d: b shares 0.6 of a's noise and d ±0.6, so its sign follows the family too
  assert.deepEqual(result.headline.counts, { 'generalises': 1, 'depends on the model': 2, 'negligible everywhere': 0, 'inconclusive': 3 });
});

test('each run enters with its Fisher z and the variance of its own CI; the pooled p is adjusted over the pairs', () => {
  const runs = families(5);
  const result = analyzeRuns(runs, opts({ metaEstimator: 'PM', hartungKnapp: true, ...noRobustness, calibration: FEWER_SIMULATIONS }));
  const ab = pairOf(result.meta, 'a', 'b');
  const pairs = result.runs.map((r) => r.pairs.find((p) => p.a === 'a' && p.b === 'b')!);
  for (const p of pairs) {
    // the run's own 95% CI half-width on z is 1.96 sqrt(variance)
    const half = (Math.atanh(p.ci95![1]) - Math.atanh(p.ci95![0])) / 2;
    assert.ok(Math.abs(half - 1.959963984540054 * Math.sqrt(fisherZVariance(p))) < 1e-12);
  }
  // pooled with the stated variance times the run's calibrated ratio where above 1 (calibrated-pooling.test.ts)
  const v = pairs.map((p, i) => fisherZVariance(p) * runVarianceFactor(result.runs[i]));
  const direct = randomEffectsMeta(pairs.map((p) => Math.atanh(p.r!)), v, { estimator: 'PM', hartungKnapp: true });
  assert.equal(ab.z, direct.estimate);
  assert.equal(ab.r, Math.tanh(direct.estimate));
  assert.deepEqual(ab.ci95, [Math.tanh(direct.ci[0]), Math.tanh(direct.ci[1])]);
  assert.equal(ab.tau2, direct.tau2);
  assert.equal(ab.p, direct.p);
  const ps = result.meta.pairs.map((p) => p.p!);
  const holm = [...ps].sort((x, y) => x - y)[0] * ps.length;
  assert.equal(Math.min(...result.meta.pairs.map((p) => p.p_adjusted!)), Math.min(1, holm));
});

test('a meta-regression on the family attribute finds that the sign depends on it', () => {
  const result = analyzeRuns(families(8), opts({ moderator: 'family', ...noRobustness, calibration: FEWER_SIMULATIONS }));
  const ad = pairOf(result.meta, 'a', 'd').moderator!;
  assert.equal(ad.attribute, 'family');
  assert.equal(ad.kind, 'categorical');
  assert.equal(ad.runs, 8);
  assert.equal(ad.reference, 'neg');
  assert.equal(ad.test!.distribution, 'F', 'Hartung-Knapp (the default): F(1, 8 - 2)');
  assert.ok(ad.test!.p < 1e-4, JSON.stringify(ad.test));
  assert.deepEqual(ad.levels!.map((l) => l.level), ['neg', 'pos']);
  assert.ok(ad.levels![0].r < -0.3 && ad.levels![0].ci95[1] < 0);
  assert.ok(ad.levels![1].r > 0.3 && ad.levels![1].ci95[0] > 0);
  assert.ok(ad.r2! > 0.8, `family should account for most of tau^2, got ${ad.r2}`);
  const ab = pairOf(result.meta, 'a', 'b').moderator!;
  assert.ok(ab.test!.p > 0.01, 'a relation the same in every family does not depend on it');
  const numeric = analyzeRuns(families(8), opts({ moderator: 'size', ...noRobustness, calibration: 0 }));
  const m = pairOf(numeric.meta, 'a', 'd').moderator!;
  assert.equal(m.kind, 'numeric');
  assert.equal(m.test!.distribution, 'F');
  assert.deepEqual(m.coefficients.map((c) => c.name), ['intercept', 'slope']);
});

test('with two runs there is no prediction interval and nothing generalises; with one run nothing is pooled', () => {
  const two = analyzeRuns(families(2), opts({ ...noRobustness, calibration: 0 }));
  for (const p of two.meta.pairs) {
    assert.equal(p.prediction95, null);
    assert.match(p.notes.join(' '), /two runs: tau\^2 rests on one degree of freedom/);
    assert.equal(p.verdict, 'inconclusive');
    assert.equal(p.why, '2 runs pooled: a prediction interval for a new run needs at least 3');
  }
  const one = analyzeRuns(families(1), opts({ ...noRobustness, calibration: 0 }));
  for (const p of one.meta.pairs) {
    assert.equal(p.verdict, 'inconclusive');
    assert.equal(p.tau2, null);
    assert.match(p.notes.join(' '), /one run/);
  }
  assert.match(one.headline.sentence, /^Only one run could be analysed, so no pair can be judged across runs \(all 6 inconclusive\)/);
});

test('the CLI prints the meta-analysis table, puts it in the JSON and writes meta and moderator CSVs', async (t) => {
  const dir = tempDir(t);
  const rows = families(6).flatMap((s) => [...s.values].flatMap(([set, values]) => [...values].map((value, i) => ({
    run: s.run, step: s.steps[i], test_set: set, metric: 'accuracy', value, family: s.attributes.family,
  }))));
  writeCsv(join(dir, 's.csv'), rows);
  const fewer = ['--calibration', String(FEWER_SIMULATIONS)];
  const json = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'id', '--format', 'json', '--meta-estimator', 'dl', ...fewer]);
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(out.meta), ['estimator', 'hartung_knapp', 'moderator', 'pairs']);
  assert.equal(out.meta.estimator, 'DL');
  assert.deepEqual(Object.keys(out.meta.pairs[0]), [
    'a', 'b', 'runs', 'excluded', 'r', 'ci95', 'p', 'p_adjusted', 'z', 'se', 'tau2', 'tau2_ci95', 'i2', 'i2_ci95',
    'q', 'q_df', 'q_p', 'q_p_adjusted', 'prediction95', 'verdict', 'why', 'unstable', 'notes', 'holds', 'of', 'fragile',
  ]);
  assert.deepEqual(Object.keys(out).slice(0, 2), ['format_version', 'headline'], 'the answer comes first, after the format');
  const verdicts = ['generalises', 'depends on the model', 'negligible everywhere', 'inconclusive'];
  assert.ok(out.meta.pairs.every((p: { verdict: string }) => verdicts.includes(p.verdict)));
  assert.equal(out.meta.hartung_knapp, true);
  const table = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'id', '--no-hartung-knapp', ...fewer]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, new RegExp(/The verdict per pair across 6 runs \(generalises \/ depends on the model \/ /.source +
    /negligible everywhere \/ inconclusive\): random-effects meta-analysis per pair \(Fisher z, REML; p and Q p adjusted/.source));
  assert.match(table.stdout, /95% prediction\s+verdict\s+why/);
  // analyze's last line is the headline, the same sentence as the JSON's
  assert.equal(table.stdout.trimEnd().split('\n').at(-1), out.headline.sentence.replace('Across 6 runs', 'Across 6 runs'));
  const csv = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'id', '--format', 'csv', '--out-file', join(dir, 'out.csv'),
    '--moderator', 'family', '--calibration', '0']);
  assert.equal(csv.code, 0, csv.stderr);
  const meta = readFileSync(join(dir, 'out.meta.csv'), 'utf8').trim().split('\n');
  assert.match(meta[0], new RegExp(/^a,b,runs,excluded,r,ci95_low,ci95_high,p,p_adjusted,z,se,tau2,.*,prediction95_low,prediction95_high,/.source +
    /verdict,notes,q_p_adjusted,why,unstable_runs,holds,of,fragile$/.source));
  assert.equal(meta.length, 1 + 6);
  const moderator = readFileSync(join(dir, 'out.moderator.csv'), 'utf8').trim().split('\n');
  assert.match(moderator[0], /^a,b,attribute,kind,runs,statistic,df1,df2,distribution,p,/);
  assert.equal(moderator.length, 1 + 6 * 2, 'intercept and one level difference per pair');
  assert.ok(moderator.slice(1).every((l) => l.includes(',family,categorical,6,')));
  const bad = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'id', '--meta-estimator', 'ml']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--meta-estimator/);
});

test('a run with r undefined is left out of that pair, one with r = ±1 pooled at 0.999, with a note', () => {
  const runs = families(4);
  // a: b's copy in run m0 (r = 1 after the control is regressed out); e: constant in run m1
  runs[0].values.set('b', Float64Array.from(runs[0].values.get('a')!, (x) => 2 * x + 1));
  runs[1].values.set('e', new Float64Array(40).fill(0.5));
  const result = analyzeRuns(runs, opts({ ...noRobustness, calibration: 0 }));
  const ab = pairOf(result.meta, 'a', 'b');
  assert.ok(Math.abs(result.runs[0].pairs.find((p) => p.a === 'a' && p.b === 'b')!.r! - 1) < 1e-12);
  assert.equal(ab.runs, 4);
  assert.equal(ab.excluded, 0);
  assert.ok(ab.notes.includes('1 run with |r| >= 0.999 (r = ±1: infinite Fisher z) pooled at |r| = 0.999 (Fisher z clipped at ±atanh(0.999))'),
    ab.notes.join('; '));
  assert.ok(Number.isFinite(ab.r));
  // a constant series is caught as unstable first (left out, listed); pooled anyway, its undefined r is left out
  const ae = pairOf(result.meta, 'a', 'e');
  assert.equal(ae.runs, 3);
  assert.deepEqual(ae.unstable, [{ run: 'm1', reason: '"e" has 1 distinct value in 40 checkpoints (fewer than 5)' }]);
  const kept = pairOf(analyzeRuns(runs, opts({ keepUnstable: true, ...noRobustness, calibration: 0 })).meta, 'a', 'e');
  assert.equal(kept.runs, 3);
  assert.ok(kept.notes.includes('1 run without a defined r left out'), kept.notes.join('; '));
});

test("each run's weight rests on its calibrated effective sample size, not its raw number of checkpoints", () => {
  // scores that drift: their first differences are AR(1) (phi 0.8) around the control's, so
  // consecutive differences are far from independent
  const ar1Run = (name: string, seed: number): RunSeries => {
    const rnd = createRandom(seed);
    const n = 50;
    const c = Float64Array.from({ length: n }, (_, t) => 0.5 + 0.3 * (1 - Math.exp(-t / 12)));
    const series = new Map<string, Float64Array>([['id', c]]);
    for (const [set, load] of [['a', 1], ['b', 0.8], ['d', 0.6]] as const) {
      const x = new Float64Array(n);
      let e = rnd.normal() / 0.6, level = 0;
      for (let t = 0; t < n; t++) { e = 0.8 * e + rnd.normal(); level += e; x[t] = load * c[t] + 0.002 * level; }
      series.set(set, x);
    }
    return { run: name, steps: Array.from({ length: n }, (_, t) => t), values: series, attributes: {}, incompleteSteps: [] };
  };
  const runs = [ar1Run('r0', 1), ar1Run('r1', 2), ar1Run('r2', 3), ar1Run('r3', 4)];
  // levels: a drift this persistent leaves few effective observations there (the noise model fits its levels)
  const calibrated = analyzeRuns(runs, opts({ representation: 'levels', residualiser: 'linear', ...noRobustness }));
  const naive = analyzeRuns(runs, opts({ representation: 'levels', inference: 'naive', residualiser: 'linear', ...noRobustness, calibration: 0 }));
  let fewer = 0;
  for (const run of calibrated.runs) {
    for (const p of run.pairs) {
      if (p.r === null) continue;
      // k = 1 (linear residualiser)
      assert.ok(Math.abs(fisherZVariance(p) - 1 / (p.n_eff - 1 - 3)) < 1e-15, `${run.run} ${p.a}/${p.b}`);
      if (p.n_eff < 0.8 * run.n) {
        fewer++;
        assert.ok(fisherZVariance(p) > 1 / (run.n - 1 - 3));
      }
    }
  }
  assert.ok(fewer > 0, 'autocorrelation leaves some pair with clearly fewer effective observations than checkpoints');
  for (const run of naive.runs) for (const p of run.pairs) assert.equal(fisherZVariance(p), 1 / (run.n - 1 - 3));
  // the pooled estimate is the meta-analysis of exactly those variances
  const ab = pairOf(calibrated.meta, 'a', 'b');
  const pairs = calibrated.runs.map((r) => r.pairs.find((p) => p.a === 'a' && p.b === 'b')!).filter((p) => p.r !== null);
  const z = (r: number) => Math.max(-Math.atanh(0.999), Math.min(Math.atanh(0.999), Math.atanh(r)));
  assert.equal(ab.se, randomEffectsMeta(pairs.map((p) => z(p.r!)), pairs.map(fisherZVariance), { hartungKnapp: true }).se);
});
