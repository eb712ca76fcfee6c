// The meta-analysis table's moderator part: a note every pair shares (the attribute missing from or
// constant in every run) is printed once, not on each of the 15 rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { formatMetaTable } from '../../src/analyze/format-meta.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { createRandom } from '../../src/stats/index.ts';

/** A run whose four OOD sets are its rising control plus noise; `attributes` as given. */
function run(name: string, seed: number, attributes: Record<string, string>): RunSeries {
  const rnd = createRandom(seed);
  const n = 30;
  const c = Float64Array.from({ length: n }, (_, t) => 0.5 + 0.3 * (1 - Math.exp(-t / 8)));
  const noisy = () => Float64Array.from(c, (x) => x + 0.02 * rnd.normal());
  return {
    run: name, steps: Array.from({ length: n }, (_, t) => t * 10),
    values: new Map([['id', c], ['a', noisy()], ['b', noisy()], ['d', noisy()], ['e', noisy()]]),
    attributes, incompleteSteps: [],
  };
}

const runs = (attributes: (i: number) => Record<string, string>) => Array.from({ length: 4 }, (_, i) => run(`r${i}`, 10 + i, attributes(i)));
// calibration 0: the pooling's own note (a run scaled by its calibrated variance) is not what these tests look at
const table = (series: RunSeries[], moderator: string) =>
  formatMetaTable(analyzeRuns(series, { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, moderator }).meta);

test('a moderator no run has: one line saying no pair could be tested, its note once', () => {
  const lines = table(runs(() => ({ family: 'x' })), 'size');
  const noteLines = lines.filter((l) => l.includes('no run has the attribute "size"'));
  assert.equal(noteLines.length, 1, lines.join('\n'));
  assert.ok(lines.includes('  no pair could be tested (6 pairs).'), lines.join('\n'));
});

test('a moderator with one value in every run: its note once, not per pair', () => {
  const lines = table(runs(() => ({ family: 'x' })), 'family');
  assert.equal(lines.filter((l) => l.includes('one value in every run')).length, 1, lines.join('\n'));
});

test('a moderator that varies: one row per pair with its test, no shared note', () => {
  const lines = table(runs((i) => ({ size: String(i + 1) })), 'size');
  const rows = lines.filter((l) => /^\s+[abde]\s+[abde]\s+4\s+F\(1, 2\)/.test(l));
  assert.equal(rows.length, 6, lines.join('\n'));
  assert.equal(lines.filter((l) => l.startsWith('  note:')).length, 0, lines.join('\n'));
});
