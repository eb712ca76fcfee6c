// What run and demo print at the end: the headline once, one line per pair, no line past 120
// columns however long the test-set names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeRuns } from '../../src/analyze/analysis.ts';
import { formatSummary } from '../../src/analyze/format-summary.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { middleTruncate, wrapText } from '../../src/text-table.ts';
import { simulateScores } from '../support/simulated-scores.ts';

test('the study summary: the headline once, a row per pair, every line within 120 columns even with 60-character set names', () => {
  const long = (s: string) => (s === 'in-domain' ? s : `${s}-with-a-name-as-long-as-a-hub-dataset-config-path`);
  const rows = simulateScores({ seed: 4, runs: 3, steps: 14 }).map((r) => ({
    run: r.run, step: r.step, testSet: long(r.test_set), metric: r.metric, value: r.value,
  }));
  const result = analyzeRuns(buildRunSeries(rows, 'accuracy'), { control: 'in-domain', calibration: 0, residualiser: 'linear' });
  const lines = formatSummary(result, 'out/analysis/analysis.txt');
  for (const l of lines) assert.ok(l.length <= 120, `${l.length} columns: ${l}`);
  const text = lines.join('\n');
  assert.equal(text.split(result.headline.sentence.slice(0, 40)).length - 1, 1, 'the headline once');
  assert.equal(lines.filter((l) => / – /.test(l)).length, 10, 'one row per pair');
  assert.match(text, /every table in out\/analysis\/analysis\.txt/);
  for (const p of result.meta.pairs) assert.ok(lines.some((l) => l.includes(p.verdict)), p.verdict);
});

test('wrapText breaks at spaces within the width; middleTruncate keeps both ends', () => {
  assert.deepEqual(wrapText('aaa bbb ccc ddd', 8, '  '), ['  aaa', '  bbb', '  ccc', '  ddd']);
  assert.deepEqual(wrapText('aaa bbb ccc', 7), ['aaa bbb', 'ccc']);
  assert.equal(middleTruncate('negation-consistent-renamed', 11), 'negat…named');
  assert.equal(middleTruncate('short', 11), 'short');
});
