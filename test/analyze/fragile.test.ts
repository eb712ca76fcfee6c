// A verdict says how robust it is: one that holds under fewer than half of the analysis choices
// is labelled fragile in the headline, the tables, the JSON and the CSV; one that holds under most
// is not. And a run whose r is ±1 is pooled (clipped), not dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { formatJson, formatTable } from '../../src/analyze/format.ts';
import { formatMetaCsv } from '../../src/analyze/format-meta.ts';
import { isFragile } from '../../src/analyze/robustness.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { checksSection, checkTables } from '../../src/report/checks-section.ts';
import type { StudyA } from '../../src/report/study-a.ts';
import { createRandom } from '../../src/stats/index.ts';

const opts = (extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions => ({ ...DEFAULT_OPTIONS, control: 'id', calibration: 0, ...extra });

const steps = (n: number) => Array.from({ length: n }, (_, t) => t * 10);

/** a and b share a smooth function of the control that a straight line cannot regress out (a spline can) and differences hide. */
function curvedRun(name: string, seed: number): RunSeries {
  const rnd = createRandom(seed);
  const c = Float64Array.from({ length: 30 }, (_, t) => 0.3 + 0.4 * t / 30);
  const curve = Float64Array.from(c, (v) => 0.02 * Math.sin(12 * v));
  const values = new Map<string, Float64Array>([['id', c]]);
  values.set('a', Float64Array.from(c, (v, t) => v + curve[t] + 0.01 * rnd.normal()));
  values.set('b', Float64Array.from(c, (v, t) => 0.8 * v + curve[t] + 0.01 * rnd.normal()));
  values.set('d', Float64Array.from(c, (v) => 0.6 * v + 0.01 * rnd.normal()));
  return { run: name, steps: steps(30), values, attributes: {}, incompleteSteps: [] };
}

/** a and b share white noise (partial correlation about 0.8): a relation every analysis choice sees. */
function sharedRun(name: string, seed: number): RunSeries {
  const rnd = createRandom(seed);
  const c = Float64Array.from({ length: 30 }, (_, t) => 0.3 + 0.4 * t / 30);
  const common = Array.from(c, () => rnd.normal());
  const values = new Map<string, Float64Array>([['id', c]]);
  values.set('a', Float64Array.from(c, (v, t) => v + 0.01 * common[t]));
  values.set('b', Float64Array.from(c, (v, t) => 0.8 * v + 0.01 * (0.8 * common[t] + 0.6 * rnd.normal())));
  values.set('d', Float64Array.from(c, (v) => 0.6 * v + 0.01 * rnd.normal()));
  return { run: name, steps: steps(30), values, attributes: {}, incompleteSteps: [] };
}

const abRow = (csv: string) => csv.split('\n').slice(1).find((l) => l.startsWith('a,b,'))!;

test('fewer than half of the available choices is fragile; half or more is not; none computed is not', () => {
  assert.equal(isFragile(3, 8), true);
  assert.equal(isFragile(4, 8), false);
  assert.equal(isFragile(1, 4), true);
  assert.equal(isFragile(0, 0), false);
});

test('a verdict that holds under 1 of 8 choices is fragile in the headline, the table, the JSON and the meta CSV', () => {
  const result = analyzeRuns([1, 2, 3, 4, 5].map((i) => curvedRun(`r${i}`, i)), opts({ residualiser: 'linear', representation: 'levels' }));
  const ab = result.robustness!.pairs.find((p) => p.a === 'a' && p.b === 'b')!;
  assert.equal(ab.verdict, 'generalises');
  assert.ok(ab.holds < ab.of / 2, `the premise: a-b holds under ${ab.holds} of ${ab.of}`);
  assert.equal(ab.fragile, true);
  assert.match(result.headline.sentence, new RegExp(`: 1 generalises \\(a–b \\+ \\(holds under ${ab.holds} of 8: fragile\\)\\), 0 depend`));
  assert.match(result.headline.sentence, / The pair that generalises is fragile \(it holds under fewer than half of the analysis choices\)\.$/);
  assert.equal(result.headline.fragile, 1);
  const json = JSON.parse(formatJson(result));
  assert.equal(json.headline.fragile, 1);
  assert.equal(json.robustness.pairs.find((p: { a: string; b: string }) => p.a === 'a' && p.b === 'b').fragile, true);
  const meta = json.meta.pairs.find((p: { a: string; b: string }) => p.a === 'a' && p.b === 'b');
  assert.deepEqual([meta.holds, meta.of, meta.fragile], [ab.holds, 8, true]);
  const csv = formatMetaCsv(result.meta);
  assert.match(csv.split('\n')[0], /,holds,of,fragile\r?$/);
  assert.match(abRow(csv), new RegExp(`,${ab.holds},8,true\r?$`));
  assert.match(formatTable(result, opts()), new RegExp(`^ +a +b +generalises +${ab.holds} of 8: fragile `, 'm'));
  // the report's robustness table: a fragile column, and the word beside "holds under"
  const a = { analysis: result, options: opts(), control: 'id', metric: 'accuracy', series: [], skipped: [] } as StudyA;
  const table = checkTables(a).find((t) => t.name === 'robustness')!;
  assert.equal(table.rows.find((r) => r[0] === 'a' && r[1] === 'b')![table.columns.indexOf('fragile')], true);
  assert.match(checksSection(a, new Map([['robustness', table]])), new RegExp(`>${ab.holds} of 8 <b class="fragile">fragile</b><`));
});

test('a relation every choice sees holds under most of them and is not called fragile', () => {
  const result = analyzeRuns([1, 2, 3, 4, 5, 6].map((i) => sharedRun(`r${i}`, 20 + i)), opts());
  const ab = result.robustness!.pairs.find((p) => p.a === 'a' && p.b === 'b')!;
  assert.equal(ab.verdict, 'generalises');
  assert.ok(ab.holds >= 6, `a-b holds under ${ab.holds} of ${ab.of}`);
  assert.equal(ab.fragile, false);
  assert.match(result.headline.sentence, new RegExp(`1 generalises \\(a–b \\+ \\(holds under ${ab.holds} of 8\\)\\)`));
  assert.match(result.headline.sentence, /The pair that generalises is not fragile/);
  assert.equal(result.headline.fragile, 0);
  assert.match(abRow(formatMetaCsv(result.meta)), new RegExp(`,${ab.holds},8,false\r?$`));
});

test('with robustness off the headline says nothing about it', () => {
  const runs = [1, 2, 3, 4, 5].map((i) => curvedRun(`r${i}`, i));
  const result = analyzeRuns(runs, opts({ residualiser: 'linear', representation: 'levels', robustness: false }));
  assert.doesNotMatch(result.headline.sentence, /holds under|fragile/);
  assert.equal(result.headline.fragile, undefined);
  assert.equal(result.meta.pairs[0].fragile, undefined);
  assert.match(abRow(formatMetaCsv(result.meta)), /,,,\r?$/);
});

test('with --method spearman a run whose r is 1 is pooled at 0.999, with a note, not left out', () => {
  const runs = [1, 2, 3].map((i) => sharedRun(`r${i}`, 40 + i));
  // in r1, b has a's ranks exactly (a monotone function of a): the Spearman partial correlation is 1
  runs[0].values.set('b', Float64Array.from(runs[0].values.get('a')!, (x) => x ** 3));
  const result = analyzeRuns(runs, opts({ method: 'spearman', robustness: false }));
  const r1 = result.runs[0].pairs.find((p) => p.a === 'a' && p.b === 'b')!;
  assert.ok(r1.r! > 0.999999, `the premise: r ${r1.r}`);
  const ab = result.meta.pairs.find((p) => p.a === 'a' && p.b === 'b')!;
  assert.equal(ab.runs, 3);
  assert.equal(ab.excluded, 0);
  assert.ok(ab.notes.includes('1 run with |r| >= 0.999 (r = ±1: infinite Fisher z) pooled at |r| = 0.999 (Fisher z clipped at ±atanh(0.999))'),
    ab.notes.join('; '));
  assert.ok(ab.z! < Math.atanh(0.999), 'the clipped run does not swamp the others');
});
