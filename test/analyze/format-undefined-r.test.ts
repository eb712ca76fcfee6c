// A pair without r says why under its run's table, numbered, rather than in the r column (where
// the reason, ~180 characters, widened every row of the table: Pythia's 410m run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { formatTable } from '../../src/analyze/format.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';

test('an undefined r is "undefined (k)" in the table and its reason is line (k) under it', () => {
  const n = 12;
  const id = Float64Array.from({ length: n }, (_, t) => 0.4 + 0.03 * t + 0.004 * Math.sin(3 * t));
  const series: RunSeries = {
    run: 'r', steps: Array.from({ length: n }, (_, t) => t * 10), attributes: {}, incompleteSteps: [],
    values: new Map([['id', id], ['a', id.map((v) => 0.2 + 0.5 * v)], ['b', id.map((v, t) => 0.3 * v + 0.01 * Math.cos(5 * t))],
      ['c', id.map((v, t) => 0.1 + 0.2 * v + 0.01 * Math.sin(7 * t))]]),
  };
  const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false, residualiser: 'linear' };
  const text = formatTable(analyzeRuns([series], opts), opts);
  const lines = text.split('\n');
  const rows = lines.filter((l) => /^ {2}a {2,}[bc] {2,}levels /.test(l));
  assert.equal(rows.length, 2, text);
  for (const row of rows) assert.match(row, / undefined \(1\) /);
  assert.ok(lines.some((l) => /^ {2}\(1\) residuals of 'a' are constant/.test(l)), text);
  const widest = Math.max(...lines.filter((l) => / {2}levels {2}/.test(l)).map((l) => l.length));
  assert.ok(widest < 120, `the pair rows fit 120 columns: ${widest}`);
});
