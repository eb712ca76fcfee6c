// One verdict per pair from the evidence across runs, with four outcomes; the interval
// shown is the one the label was decided on (or the label says why not); degenerate series caught
// as unstable and left out of the pooling; designed-against-found reading the same verdict.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS, PAIR_VERDICTS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { formatTable } from '../../src/analyze/format.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { carryingCheckpoints } from '../../src/analyze/stability.ts';
import { pairVerdict } from '../../src/analyze/verdict.ts';
import { foundByVerdict } from '../../src/pipeline/demo-check.ts';
import { createRandom } from '../../src/stats/index.ts';
import { checkDesign, formatDesignCheck } from '../../src/synth/index.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

const opts = (extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions =>
  ({ ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false, ...extra });

/** n checkpoints: a rising control and OOD sets that follow it plus independent white noise, partial correlation `rho` between a and b. */
function run(name: string, seed: number, n = 30, rho = 0, sets = ['a', 'b']): RunSeries {
  const rnd = createRandom(seed);
  const c = Float64Array.from({ length: n }, (_, t) => 0.5 + 0.3 * (1 - Math.exp(-t / 8)));
  const values = new Map<string, Float64Array>([['id', c]]);
  const shared = Array.from({ length: n }, () => rnd.normal());
  sets.forEach((set, i) => {
    const mix = set === 'b' ? rho : 0;
    values.set(set, Float64Array.from(c,
      (v, t) => (0.6 + 0.1 * i) * v + 0.02 * (set === 'a' ? shared[t] : mix * shared[t] + Math.sqrt(1 - mix * mix) * rnd.normal())));
  });
  return { run: name, steps: Array.from({ length: n }, (_, t) => t * 20), values, attributes: {}, incompleteSteps: [] };
}

test('the four outcomes are one exported vocabulary, and every pair gets one of them with a reason', () => {
  assert.deepEqual(PAIR_VERDICTS, ['generalises', 'depends on the model', 'negligible everywhere', 'inconclusive']);
  const result = analyzeRuns([1, 2, 3, 4].map((i) => run(`r${i}`, i, 30, 0, ['a', 'b', 'd'])), opts());
  for (const p of result.meta.pairs) {
    assert.ok((PAIR_VERDICTS as readonly string[]).includes(p.verdict));
    assert.ok(p.why.length > 0);
  }
  assert.deepEqual(Object.keys(result.headline.counts), [...PAIR_VERDICTS]);
});

test('a pair significant in no run never gives "Yes": it is inconclusive, and analyze\'s last line says so', async (t) => {
  const runs = [1, 2, 3].map((i) => run(`r${i}`, 10 + i));
  const result = analyzeRuns(runs, opts());
  assert.ok(result.runs.every((r) => r.pairs.every((p) => !(p.p_adjusted! < 0.05))), 'the premise: significant in no run');
  assert.equal(result.meta.pairs[0].verdict, 'inconclusive');
  assert.doesNotMatch(result.headline.sentence, /\bYes\b/);
  assert.match(result.headline.sentence,
    /: 0 generalise, 0 depend on the model, 0 are negligible everywhere \(\|r\| < 0\.1\) and 1 is inconclusive \(with 3 runs .*\)\.$/);
  // the CLI, as in the issue: three runs, one pair named with --test-set
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), runs.flatMap((s) =>
    [...s.values].flatMap(([set, v]) => [...v].map((value, i) => ({ run: s.run, step: s.steps[i], test_set: set, metric: 'accuracy', value })))));
  const cli = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'id', '--test-set', 'a', 'b', '--calibration', '0']);
  assert.equal(cli.code, 0, cli.stderr);
  const last = cli.stdout.trimEnd().split('\n').at(-1)!;
  assert.equal(last, result.headline.sentence);
  assert.doesNotMatch(cli.stdout, /\bYes\b/);
  assert.match(cli.stdout, new RegExp(/The papers' view \(significant signs counted per run, adjusted p < 0\.05\): /.source +
    /across 3 runs, 0 of 1 pairs keep the same significant sign in every run and 1 is significant in none\./.source));
});

test('no relation is shown, not assumed: many long runs give "negligible everywhere"; a tighter margin leaves it inconclusive', async (t) => {
  const runs = Array.from({ length: 20 }, (_, i) => run(`r${i}`, 100 + i, 300));
  const wide = analyzeRuns(runs, opts());
  const p = wide.meta.pairs[0];
  assert.equal(p.verdict, 'negligible everywhere', p.why);
  assert.ok(p.prediction95![0] > -0.1 && p.prediction95![1] < 0.1);
  assert.equal(p.why, `95% prediction interval [${p.prediction95![0].toFixed(3)}, ${p.prediction95![1].toFixed(3)}] inside ±0.1`);
  const tight = analyzeRuns(runs, opts({ equivalenceMargin: 0.01 }));
  assert.equal(tight.meta.pairs[0].verdict, 'inconclusive');
  // the flag, declared once in options.ts
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), runs.slice(0, 3).flatMap((s) =>
    [...s.values].flatMap(([set, v]) => [...v].map((value, i) => ({ run: s.run, step: s.steps[i], test_set: set, metric: 'accuracy', value })))));
  const cli = await genstudy(
    ['analyze', join(dir, 's.csv'), '--control', 'id', '--equivalence-margin', '0.9', '--calibration', '0', '--no-robustness', '--format', 'json']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(JSON.parse(cli.stdout).meta.pairs[0].verdict, 'negligible everywhere');
  const bad = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'id', '--equivalence-margin', '1.5']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--equivalence-margin/);
});

test('a relation in every run generalises; its reason names the interval it was decided on', () => {
  const result = analyzeRuns(Array.from({ length: 6 }, (_, i) => run(`r${i}`, 200 + i, 40, 0.7)), opts());
  const p = result.meta.pairs[0];
  assert.equal(p.verdict, 'generalises', p.why);
  assert.equal(p.why, `pooled r ${p.r!.toFixed(3)} ` +
    `(uncorrected p ${p.p_adjusted! < 1e-4 ? p.p_adjusted!.toExponential(1) : p.p_adjusted!.toFixed(4)}), ` +
    `95% prediction interval [${p.prediction95![0].toFixed(3)}, ${p.prediction95![1].toFixed(3)}] all positive`);
  assert.match(result.headline.sentence, /: 1 generalises \(a–b \+\), 0 depend on the model/);
});

test('the r -0.999 row with a Holm-adjusted p of 0.078 is not labelled null without saying why', () => {
  const row = { runs: 3, r: -0.999, p: 0.078 / 3, p_adjusted: 0.078, q_p: 0.9, q_p_adjusted: 1, prediction95: [-1.0, -0.951] as [number, number] };
  const v = pairVerdict(row, { alpha: 0.05, equivalenceMargin: 0.1, correction: 'holm', pairs: 15 });
  assert.equal(v.verdict, 'inconclusive');
  assert.equal(v.why, 'pooled r -0.999 significant before, not after correcting for 15 pairs (p 0.0260, holm-adjusted p 0.0780)');
  // with no correction the same row generalises: the label follows the p it shows
  assert.equal(pairVerdict(row, { alpha: 0.05, equivalenceMargin: 0.1, correction: 'none', pairs: 15 }).verdict, 'inconclusive');
  assert.equal(
    pairVerdict({ ...row, p_adjusted: row.p }, { alpha: 0.05, equivalenceMargin: 0.1, correction: 'none', pairs: 15 }).verdict, 'generalises');
});

/** The demo's seed2: two overlap sets at exactly 0.500 from the third checkpoint on, differing only at step 0. */
function plateauRun(name: string, seed: number): RunSeries {
  const s = run(name, seed, 21, 0, ['a', 'b', 'overlap-broken', 'overlap-consistent']);
  s.values.set('overlap-broken', Float64Array.from(s.steps, (_, t) => (t === 0 ? 0.2 : t === 1 ? 0.45 : 0.5)));
  s.values.set('overlap-consistent', Float64Array.from(s.steps, (_, t) => (t === 0 ? 0.8 : t === 1 ? 0.55 : 0.5)));
  return s;
}

test('the 0.500-plateau series is reported unstable with the reason and left out of the pooling unless --keep-unstable', () => {
  const runs = [run('r1', 31, 21, 0, ['a', 'b', 'overlap-broken', 'overlap-consistent']),
    run('r2', 32, 21, 0, ['a', 'b', 'overlap-broken', 'overlap-consistent']), plateauRun('seed2', 33)];
  const result = analyzeRuns(runs, opts());
  const seed2 = result.runs[2].pairs.find((p) => p.a === 'overlap-broken' && p.b === 'overlap-consistent')!;
  assert.equal(seed2.unstable, '"overlap-broken" has 3 distinct values in 21 checkpoints (fewer than 5)');
  const meta = result.meta.pairs.find((p) => p.a === 'overlap-broken' && p.b === 'overlap-consistent')!;
  assert.equal(meta.runs, 2);
  assert.deepEqual(meta.unstable.map((u) => u.run), ['seed2']);
  assert.match(meta.notes.join('; '), /1 run unstable, left out \(--keep-unstable pools them\): seed2: "overlap-broken" has 3 distinct values/);
  assert.match(result.headline.sentence, / run results were unstable and left out of the pooling \(listed per pair; --keep-unstable pools them\)\.$/);
  assert.ok(result.headline.unstable_left_out >= 1);
  const table = formatTable(result, opts());
  assert.match(table, /run seed2:[\s\S]*unstable[\s\S]*"overlap-broken" has 3 distinct values/);
  const kept = analyzeRuns(runs, opts({ keepUnstable: true }));
  const keptPair = kept.meta.pairs.find((p) => p.a === 'overlap-broken' && p.b === 'overlap-consistent')!;
  assert.match(keptPair.notes.join('; '), /1 run unstable, pooled anyway \(--keep-unstable\): seed2/);
  // seed2's pair is still pooled unless its r is undefined (r = ±1 is pooled at 0.999, with a note)
  assert.equal(keptPair.runs, seed2.r !== null ? 3 : 2);
  assert.equal(kept.headline.unstable_left_out, 0);
  // the other pairs with a 3-valued series are unstable too, and only in seed2
  assert.ok(result.runs[2].pairs.filter((p) => p.a.startsWith('overlap') || p.b.startsWith('overlap')).every((p) => p.unstable !== undefined));
  assert.ok(result.runs.slice(0, 2).every((r) => r.pairs.every((p) => p.unstable === undefined)));
});

test('a significant correlation carried by one checkpoint is unstable; one spread over the run is not', () => {
  // residual products: one huge shared spike at step 5, noise elsewhere
  const ea = Float64Array.from([0.1, -0.2, 0.1, 0.05, -0.1, 3, 0.2, -0.1, 0.1, -0.05]);
  const eb = Float64Array.from([-0.1, 0.1, 0.2, -0.1, 0.1, 3, -0.2, 0.1, -0.1, 0.05]);
  assert.deepEqual(carryingCheckpoints(ea, eb), { checkpoints: [5], how: 'outweighs' });
  // two checkpoints whose removal flips the sign, neither outweighing the rest
  const fa = Float64Array.from([1, 1, -0.5, 0.5, -0.5, 0.5]), fb = Float64Array.from([1, 1, 0.5, -0.5, 0.5, -0.4]);
  assert.deepEqual(carryingCheckpoints(fa, fb), { checkpoints: [0, 1], how: 'flips' });
  const spread = Float64Array.from({ length: 10 }, (_, i) => (i % 2 ? 1 : -1));
  assert.equal(carryingCheckpoints(spread, spread), undefined);
  // through the analysis: a shared spike at one checkpoint in otherwise independent noise
  const s = run('spike', 41, 25, 0);
  const a = s.values.get('a')!, b = s.values.get('b')!;
  a[12] += 0.3; b[12] += 0.3;
  const pair = analyzeRuns([s, run('r2', 42, 25)], opts({ representation: 'levels' })).runs[0].pairs[0];
  assert.ok(pair.p! < 0.05, `the premise: the spike makes it significant (p ${pair.p})`);
  assert.equal(pair.unstable, "one checkpoint carries the correlation (step 240): its residual product outweighs all other checkpoints' together");
});

test('designed against found reads the same verdict: the pairs it finds are the pairs that generalise', () => {
  // a-b correlate 0.7 in every run, d is independent of both; at 40 checkpoints these runs' r
  // scatter 0.47-0.87 (Q p 0.0009), and the prediction interval's k - 2 degrees of freedom reach 0
  const result = analyzeRuns(Array.from({ length: 6 }, (_, i) => run(`r${i}`, 400 + i, 60, 0.7, ['a', 'b', 'd'])), opts());
  const found = foundByVerdict(result);
  const check = checkDesign([
    { a: 'a', b: 'b', sign: 'positive', why: 'shared noise' },
    { a: 'a', b: 'd', sign: 'negative', why: 'not built in: must be missed' },
  ], found);
  const generalising = result.meta.pairs.filter((p) => p.verdict === 'generalises').map((p) => `${p.a}/${p.b}`);
  assert.deepEqual(generalising, ['a/b']);
  assert.deepEqual(check.rows.filter((r) => r.outcome === 'recovered' || r.outcome === 'wrong sign' ||
    r.outcome === 'spurious').map((r) => `${r.a}/${r.b}`), generalising);
  assert.equal(check.rows.find((r) => r.a === 'a' && r.b === 'd')!.outcome, 'missed');
  assert.match(check.verdict, new RegExp(/^Not recovered: 1 of 2 designed pairs generalise with their designed sign across the 6 runs; /.source +
    /0 of 1 pairs with no designed relation generalise \(at most 2 allowed\) \(a \/ d is inconclusive\)\.$/.source));
  assert.match(formatDesignCheck(check), /^ {2}a +b +positive +\d +\d +6 +generalises +recovered$/m);
  assert.match(result.headline.sentence, /1 generalises \(a–b \+\)/);
});
