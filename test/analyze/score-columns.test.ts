// The score columns (analyze/score-columns.ts) and their index (score-index.ts) against what an
// object per row gave, written out here as the plain loops the reader used before: on random rows
// in any order (steps shuffled, runs interleaved, attributes changing from row to row, some rows
// with n or stderr, repeats) the rows read back, each run's merged attributes, the first duplicate
// in the order read, and every metric's series (steps kept and left out, values, sampling
// variances) must be the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../src/seeded-random.ts';
import { ScoreColumns } from '../../src/analyze/score-columns.ts';
import { buildRunSeries, samplingVariance, type RunSeries } from '../../src/analyze/run-series.ts';
import { compareRunNames } from '../../src/analyze/run-order.ts';
import type { ScoreRow } from '../../src/analyze/score-row.ts';

function randomRows(seed: number, repeats: number): ScoreRow[] {
  const rng = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
  const rows: ScoreRow[] = [];
  for (const run of ['run-10', 'run-2', 'b']) {
    for (const testSet of ['id', 'ood-a', 'ood-b']) {
      for (const metric of ['accuracy', 'bleu']) {
        for (let step = 0; step < 12; step++) {
          if (rng() < 0.08) continue; // a step some set lacks
          const attributes: Record<string, string> = {};
          if (rng() < 0.7) attributes.model = pick(['m1', 'm2']);
          if (rng() < 0.5) attributes.index = String(rows.length);
          if (rng() < 0.3) attributes.seed = pick(['07', '1', 'x']);
          const row: ScoreRow = { run, step: step * 25, testSet, metric, value: rng(), attributes, origin: `t.csv:${rows.length + 2}` };
          if (rng() < 0.3) row.n = pick([100, 500]);
          else if (rng() < 0.2) row.stderr = rng() / 10;
          rows.push(row);
        }
      }
    }
  }
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  for (let k = 0; k < repeats; k++) {
    const at = Math.floor(rng() * rows.length);
    rows.splice(at + 1 + Math.floor(rng() * 5), 0, { ...rows[at], value: rng(), origin: `t.csv:repeat${k}` });
  }
  return rows;
}

/** The first row whose (run, step, test set, metric) came before, as a Map of keys seen found it. */
function firstRepeat(rows: readonly ScoreRow[], metric?: string): string | undefined {
  const first = new Map<string, ScoreRow>();
  for (const row of rows) {
    if (metric !== undefined && row.metric !== metric) continue;
    const key = JSON.stringify([row.run, row.step, row.testSet, row.metric]);
    const earlier = first.get(key);
    if (earlier) return `${row.origin} after ${earlier.origin}`;
    first.set(key, row);
  }
  return undefined;
}

/** The series as the reader built them from row objects. */
function referenceSeries(rows: readonly ScoreRow[], metric: string, sampleSize?: number): RunSeries[] {
  const byRun = new Map<string, { cells: Map<string, Map<number, ScoreRow>>; attributes: Record<string, string> }>();
  for (const row of rows) {
    if (row.metric !== metric) continue;
    let run = byRun.get(row.run);
    if (!run) byRun.set(row.run, (run = { cells: new Map(), attributes: {} }));
    Object.assign(run.attributes, row.attributes);
    let bySet = run.cells.get(row.testSet);
    if (!bySet) run.cells.set(row.testSet, (bySet = new Map()));
    bySet.set(row.step, row);
  }
  return [...byRun].sort(([a], [b]) => compareRunNames(a, b)).map(([run, { cells, attributes }]) => {
    const testSets = [...cells.keys()].sort();
    const allSteps = [...new Set(testSets.flatMap((t) => [...cells.get(t)!.keys()]))].sort((a, b) => a - b);
    const steps = allSteps.filter((s) => testSets.every((t) => cells.get(t)!.has(s)));
    const incompleteSteps = allSteps.filter((s) => !steps.includes(s))
      .map((step) => ({ step, missing: testSets.filter((t) => !cells.get(t)!.has(step)) }));
    const values = new Map(testSets.map((t) => [t, Float64Array.from(steps, (s) => cells.get(t)!.get(s)!.value)]));
    const samplingVariances = new Map<string, Float64Array>();
    for (const t of testSets) {
      const v = steps.map((s) => { const r = cells.get(t)!.get(s)!; return samplingVariance(r.metric, r.value, r.n, r.stderr, sampleSize); });
      if (steps.length && v.every((x) => x !== undefined)) samplingVariances.set(t, Float64Array.from(v as number[]));
    }
    return { run, steps, values, attributes, incompleteSteps, samplingVariance: samplingVariances };
  });
}

test('random rows as columns: read back as given, each run\'s attributes merged in the order read', () => {
  for (const seed of [1, 2, 3]) {
    const rows = randomRows(seed, 0);
    const columns = ScoreColumns.fromRows(rows);
    assert.deepEqual(columns.rows(), rows);
    const merged = new Map<string, Record<string, string>>();
    for (const row of rows) merged.set(row.run, Object.assign(merged.get(row.run) ?? {}, row.attributes));
    for (const [run, attributes] of columns.mergedAttributes()) {
      assert.deepEqual(Object.entries(attributes), Object.entries(merged.get(columns.runs[run])!), `seed ${seed}, run ${columns.runs[run]}`);
    }
  }
});

test('the first repeat in the order read is the duplicate named, whichever metric; per metric for the series', () => {
  for (const seed of [4, 5, 6, 7, 8]) {
    const rows = randomRows(seed, 3);
    const columns = ScoreColumns.fromRows(rows);
    const [row, earlier] = firstRepeat(rows)!.split(' after ');
    assert.throws(() => columns.refuseDuplicates(), (e: Error) => e.message.startsWith(`${row}: duplicate score`) &&
      e.message.endsWith(`(first given at ${earlier})`), `seed ${seed}`);
    const bleu = firstRepeat(rows, 'bleu');
    if (bleu === undefined) assert.equal(buildRunSeries(rows, 'bleu').length, 3);
    else assert.throws(() => buildRunSeries(rows, 'bleu'), (e: Error) => e.message.startsWith(`${bleu.split(' after ')[0]}: duplicate`));
  }
});

test('every metric\'s series from the columns are those built from row objects', () => {
  let incomplete = 0, withVariance = 0;
  for (const seed of [9, 10, 11]) {
    const rows = randomRows(seed, 0);
    const columns = ScoreColumns.fromRows(rows);
    for (const metric of ['accuracy', 'bleu']) {
      for (const sampleSize of [undefined, 1000]) {
        const expected = referenceSeries(rows, metric, sampleSize);
        assert.deepEqual(buildRunSeries(columns, metric, { sampleSize }), expected, `seed ${seed}, ${metric}`);
        assert.deepEqual(buildRunSeries(rows, metric, { sampleSize }), expected, `seed ${seed}, ${metric}, from rows`);
        incomplete += expected.filter((s) => s.incompleteSteps.length).length;
        withVariance += expected.filter((s) => s.samplingVariance?.size).length;
      }
    }
  }
  assert.ok(incomplete > 0 && withVariance > 0, `steps left out (${incomplete} series) and variances known (${withVariance}) are compared`);
});
