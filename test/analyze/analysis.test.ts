// The analysis as a library: plateaus and ties, constant residuals, calibration, robustness, and
// the one verdict sentence.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRun, analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { formatTable, headline, spacingNote } from '../../src/analyze/format.ts';
import { studyAHeadline } from '../../src/report/study-a-section.ts';
import { ar1Into, createRandom, ouInto } from '../../src/stats/index.ts';

const FAST: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false };

function run(name: string, values: Record<string, ArrayLike<number>>): RunSeries {
  const n = values.id.length;
  return {
    run: name, steps: Array.from({ length: n }, (_, i) => i * 10), attributes: {}, incompleteSteps: [],
    values: new Map(Object.entries(values).map(([k, v]) => [k, Float64Array.from(v)])),
  };
}

/** A learning curve with OOD sets that follow it plus AR(1) noise (phi), seeded. */
function noisyRun(name: string, n: number, phi: number, seed: number): RunSeries {
  const random = createRandom(seed);
  const id: number[] = [], noise = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  noise.forEach((e) => ar1Into(e, phi, random));
  for (let t = 0; t < n; t++) id.push(0.4 + 0.5 * (1 - Math.exp(-4 * t / n)) + 0.01 * random.normal());
  return run(name, {
    id, a: id.map((v, t) => 0.7 * v + 0.03 * noise[0][t]), b: id.map((v, t) => 0.2 + 0.3 * v + 0.03 * noise[1][t]),
    c: id.map((v, t) => 0.5 * v + 0.03 * noise[2][t]),
  });
}

test('a plateau-heavy run: distinct checkpoints counted, a warning, and no test counts the repeats', () => {
  // 21 checkpoints holding 8 distinct score vectors (a tiny model's long plateaus)
  const levels = [0.30, 0.42, 0.47, 0.55, 0.58, 0.66, 0.71, 0.73];
  const lengths = [3, 3, 2, 4, 2, 3, 2, 2];
  const id: number[] = [], a: number[] = [], b: number[] = [], c: number[] = [];
  levels.forEach((v, i) => {
    for (let k = 0; k < lengths[i]; k++) {
      id.push(v); a.push(0.5 * v + [0.01, -0.02, 0.03, 0, -0.01, 0.02, -0.03, 0.01][i]);
      b.push(0.2 + 0.4 * v + [0.02, 0.01, -0.01, 0.03, -0.02, 0, 0.01, -0.03][i]); c.push(0.1 + v * v);
    }
  });
  assert.equal(id.length, 21);
  const series = run('tiny', { id, a, b, c });
  for (const inference of ['effective-n', 'naive'] as const) {
    for (const residualiser of ['linear', 'spline'] as const) {
      const result = analyzeRun(series, { ...FAST, inference, residualiser, representation: 'levels' });
      assert.equal(result.distinct, 8);
      assert.match(result.warning ?? '', new RegExp(
        /13 of 21 checkpoints repeat an earlier checkpoint's scores on every test set \(8 distinct\): /.source +
        /each pair's test counts at most that pair's own distinct checkpoints/.source));
      for (const p of result.pairs) {
        assert.equal(p.distinct, 8, `${inference}/${residualiser} ${p.a}-${p.b}`);
        if (p.r === null) { assert.ok(p.reason, 'a null result says why'); continue; }
        if (inference === 'effective-n') assert.ok(p.n_eff <= 8, `nEff ${p.n_eff} counts repeats`);
        // never a perfect correlation with a tiny p from a spline that ate the degrees of freedom
        assert.ok(!(Math.abs(p.r) > 0.99 && p.p! < 1e-6), `${inference}/${residualiser} ${p.a}-${p.b}: r ${p.r}, p ${p.p}, df ${p.df}`);
      }
    }
  }
});

test('n_eff never exceeds the distinct checkpoints of the pair, on levels and on differences, and says the warning\'s number', () => {
  // 21 checkpoints revisiting 8 score rows out of order: the differences take up to 20 distinct
  // values (19 per pair before the cap), though the pair holds 8 distinct checkpoints
  const levels = [0.30, 0.42, 0.47, 0.55, 0.58, 0.66, 0.71, 0.73];
  const order = [0, 1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 7, 0, 3, 5, 1, 7];
  const off = [0.01, -0.02, 0.03, 0, -0.01, 0.02, -0.03, 0.01], off2 = [0.02, 0.01, -0.01, 0.03, -0.02, 0, 0.01, -0.03];
  const series = run('revisits', {
    id: order.map((i) => levels[i]), a: order.map((i) => 0.5 * levels[i] + off[i]),
    b: order.map((i) => 0.2 + 0.4 * levels[i] + off2[i]), c: order.map((i) => 0.1 + levels[i] ** 2 + off[(i + 3) % 8]),
  });
  for (const representation of ['auto', 'levels', 'differences'] as const) {
    const result = analyzeRun(series, { ...FAST, representation });
    assert.equal(result.distinct, 8);
    assert.match(result.warning ?? '', /\(8 distinct\)/);
    assert.equal(result.pairs.length, 3);
    for (const p of result.pairs) {
      assert.equal(p.distinct, 8, `${representation} ${p.a}-${p.b}: the pair's distinct checkpoints`);
      assert.ok(p.n_eff <= 8, `${representation} ${p.a}-${p.b} (${p.representation}): nEff ${p.n_eff} above the 8 distinct checkpoints`);
      if (p.representation === 'differences') assert.ok(p.n_eff <= 7, `8 distinct rows hold at most 7 changes, nEff ${p.n_eff}`);
    }
  }
});

test('too few distinct checkpoints for the method: a null result with its reason', () => {
  const id = [0.3, 0.3, 0.3, 0.5, 0.5, 0.5, 0.6, 0.6, 0.6, 0.6];
  const a = [0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.5, 0.5, 0.5, 0.5];
  const b = [0.1, 0.1, 0.1, 0.4, 0.4, 0.4, 0.2, 0.2, 0.2, 0.2];
  for (const inference of ['effective-n', 'naive'] as const) {
    const result = analyzeRun(run('r', { id, a, b, c: a.map((v, i) => v + b[i]) }), { ...FAST, inference, representation: 'levels' });
    for (const p of result.pairs) {
      assert.equal(p.r, null);
      assert.equal(p.p, null);
      assert.match(p.reason!, /only 3 distinct checkpoints \(of 10\)/);
    }
  }
});

test('constant residuals (an OOD set that is a linear function of the control) are a null result, never r = +-1', () => {
  const s = noisyRun('r', 20, 0.3, 4);
  const id = s.values.get('id')!;
  s.values.set('a', id.map((v) => 0.2 + 0.5 * v));
  for (const inference of ['effective-n', 'naive'] as const) {
    for (const representation of ['levels', 'differences', 'auto'] as const) {
      const result = analyzeRun(s, { ...FAST, inference, representation });
      for (const p of result.pairs.filter((q) => q.a === 'a')) {
        assert.equal(p.r, null, `${inference}/${representation} ${p.a}-${p.b}`);
        assert.match(p.reason!, /residuals of 'a' are constant/);
        assert.equal(p.p_adjusted, null);
      }
      assert.ok(result.pairs.some((p) => p.r !== null), 'the other pairs are still tested');
    }
  }
});

test('calibration: on strongly autocorrelated runs the default stays near alpha, the naive test does not', () => {
  // the line: a spline in the control (which moves with time) would take up much of a drift this persistent
  const result = analyzeRun(noisyRun('r', 30, 0.9, 11), { ...FAST, residualiser: 'linear', calibration: 400, seed: 3 });
  const c = result.calibration!;
  assert.equal(c.simulations, 400);
  assert.equal(c.alpha, 0.05);
  assert.equal(c.effect, 0.5);
  assert.ok(c.phi > 0.5, `phi ${c.phi}`);
  // 400 draws: 9% is 3.7 binomial sd above 5%
  assert.ok(c.false_positive_rate <= 0.09, `default false-positive rate ${c.false_positive_rate}`);
  assert.ok(c.naive_false_positive_rate >= 0.15, `naive false-positive rate ${c.naive_false_positive_rate}`);
  assert.ok(c.power > c.false_positive_rate + 0.1, `power ${c.power}`);
  // seeded: the same numbers again
  assert.deepEqual(analyzeRun(noisyRun('r', 30, 0.9, 11), { ...FAST, residualiser: 'linear', calibration: 400, seed: 3 }).calibration, c);
  assert.equal(analyzeRun(noisyRun('r', 30, 0.9, 11), FAST).calibration, undefined);
});

test('robustness: each verdict holds under k of the 8 analysis choices; a choice the data cannot support is listed, not counted', () => {
  const runs = [noisyRun('r1', 30, 0.2, 21), noisyRun('r2', 30, 0.2, 22), noisyRun('r3', 30, 0.2, 23)];
  const result = analyzeRuns(runs, { ...FAST, robustness: true });
  const rb = result.robustness!;
  assert.equal(rb.choices.length, 8);
  assert.ok(rb.choices.every((c) => c.available));
  assert.equal(rb.pairs.length, result.agreement.length);
  for (const p of rb.pairs) {
    assert.equal(p.of, 8);
    assert.equal(p.holds + p.otherwise.length, 8);
    // independent noise in 3 runs: inconclusive under most choices
    assert.equal(p.verdict, 'inconclusive');
    assert.ok(p.holds >= 6, `${p.a}-${p.b} holds under ${p.holds}: ${p.otherwise.join('; ')}`);
  }
  const short = analyzeRuns([noisyRun('s1', 10, 0.2, 31), noisyRun('s2', 10, 0.2, 32)], { ...FAST, robustness: true }).robustness!;
  assert.equal(short.choices.filter((c) => c.available).length, 4);
  assert.match(short.choices.find((c) => c.residualiser === 'spline')!.reason!, /too few checkpoints for the spline residualiser/);
  assert.ok(short.pairs.every((p) => p.of === 4));
});

test('the headline is one field of the result: the CLI headline and the report say the same', () => {
  const opts: AnalyzeOptions = { ...FAST, robustness: false };
  const result = analyzeRuns([noisyRun('r1', 25, 0.5, 41), noisyRun('r2', 25, 0.5, 42)], opts);
  const sentence = result.headline.sentence;
  assert.equal(sentence, 'Across 2 runs, of 3 pairs of OOD test sets (partial correlations with "id" regressed out, pooled over runs): 0 ' +
    'generalise, 0 depend on the model, ' +
    '0 are negligible everywhere (|r| < 0.1) and 3 are inconclusive (a prediction interval needs at least 3 runs).');
  assert.equal(headline(result), sentence);
  assert.equal(studyAHeadline({ control: 'id', metric: 'accuracy', options: opts, analysis: result, series: [], skipped: [] }), sentence);
  // three runs: the prediction interval's t(1) is named; four runs: no note
  const three = analyzeRuns([41, 42, 43].map((seed, i) => noisyRun(`r${i}`, 25, 0.5, seed)), opts).headline.sentence;
  assert.match(three, new RegExp(/^Across 3 runs, .* and 3 are inconclusive \(with 3 runs the prediction interval for a new run is wide, /.source +
    /t\(1\) = 12\.7: plan 5 or more\)\.$/.source));
  const four = analyzeRuns([41, 42, 43, 44].map((seed, i) => noisyRun(`r${i}`, 25, 0.5, seed)), opts).headline.sentence;
  assert.match(four, /are inconclusive\.$/);
});

test('a library caller that passes only some options gets the declared defaults for the rest', () => {
  const partial = { control: 'id', method: 'pearson', residualiser: 'linear', correction: 'none', alpha: 0.05 } as AnalyzeOptions;
  const runs = [noisyRun('r1', 20, 0.3, 51), noisyRun('r2', 20, 0.3, 52)];
  const got = analyzeRuns(runs, partial);
  const want = analyzeRuns(runs, { ...DEFAULT_OPTIONS, ...partial });
  assert.deepEqual(got, want);
  assert.equal(got.runs[0].calibration!.simulations, DEFAULT_OPTIONS.calibration);
  assert.ok(got.robustness);
});

test('an unevenly spaced run: the test models the gaps, the calibration simulates the run\'s own steps, and the output says so', () => {
  const steps = [0, ...Array.from({ length: 10 }, (_, i) => 2 ** i), 1000, 3000, ...Array.from({ length: 14 }, (_, i) => 10000 * (i + 1)), 143000];
  const random = createRandom(3);
  const n = steps.length;
  const noise = [0, 1, 2].map(() => ouInto(new Float64Array(n), steps, 20000, random));
  const id = steps.map((t) => 0.3 + 0.5 * (1 - Math.exp(-4 * t / 143000)) + 0.02 * random.normal());
  const values = { id, a: id.map((v, t) => 0.5 * v + 0.05 * noise[0][t]), b: id.map((v, t) => 0.6 * v + 0.05 * noise[1][t]),
    c: id.map((v, t) => 0.4 * v + 0.05 * noise[2][t]) };
  const uneven: RunSeries = { ...run('pythia-like', values), steps };
  const opts: AnalyzeOptions = { ...FAST, calibration: 100 };
  const result = analyzeRun(uneven, opts);
  assert.deepEqual(result.spacing, { uneven: true, min_gap: 1, reference_gap: 7000, max_gap: 10000, modelled: true });
  assert.ok(result.calibration !== undefined && result.calibration.phi > 0, 'the calibration names the drift it simulated');
  assert.ok(result.calibration!.false_positive_rate <= 0.1, `calibrated on the run's steps: ${result.calibration!.false_positive_rate}`);
  // the same scores read as evenly spaced are tested differently: the steps reach the test
  const asEven = analyzeRun(run('pythia-like', values), opts);
  assert.equal(asEven.spacing, undefined);
  assert.notDeepEqual(result.pairs.map((p) => p.n_eff), asEven.pairs.map((p) => p.n_eff));
  for (const p of result.pairs) assert.ok(p.n_eff <= (p.representation === 'differences' ? n - 1 : n));
  const table = formatTable(analyzeRuns([uneven], opts), opts);
  assert.match(table,
    /note: uneven checkpoint spacing \(gaps 1 to 10000 steps, median 7000\): the test models a drift correlated exp\(-gap \/ tau\) plus white noise/);
  assert.match(table, /drift phi \d\.\d\d \+ \d+% white noise at the run's steps/);
  // the naive test ignores the gaps, and says so
  const naive = analyzeRun(uneven, { ...FAST, inference: 'naive' });
  assert.equal(naive.spacing?.modelled, false);
  assert.match(spacingNote(naive.spacing!), /naive test counts every checkpoint as independent/);
});
