// Inputs whose OOD sets imply more pairs than --max-pairs are refused before any pair is tested,
// saying how many pairs they imply (a wide export with thousands of columns once ran for minutes,
// gigabytes deep, without a word); a long analysis says how far it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analysisProgress } from '../../src/cli/analysis-progress.ts';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';
import { simulateScores } from '../support/simulated-scores.ts';

function manySets(sets: number, steps: number) {
  const rows = [];
  for (let step = 0; step < steps; step++) {
    rows.push({ run: 'a', step, test_set: 'id', metric: 'accuracy', value: 0.5 + step / 100 });
    for (let s = 0; s < sets; s++)
      rows.push({ run: 'a', step, test_set: `set${s}`, metric: 'accuracy', value: (0.3 + ((s * 7 + step * 13) % 17) / 100).toFixed(3) });
  }
  return rows;
}

test('460 OOD sets (105,570 pairs) are refused past the default --max-pairs, naming the count and --test-set; named sets go through', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'wide.csv');
  writeCsv(file, manySets(460, 6));
  const refused = await genstudy(['analyze', file, '--control', 'id']);
  assert.equal(refused.code, 2, refused.stderr);
  const last = refused.stderr.trim().split('\n').at(-1)!;
  assert.match(last,
    /460 OOD test sets make 105,570 pairs, more than --max-pairs 100,000: name the sets to compare with --test-set, or raise --max-pairs/);
  const named = await genstudy(['analyze', file, '--control', 'id', '--test-set', 'set0', 'set1', 'set2', '--residualiser', 'linear',
    '--calibration', '0', '--no-robustness', '--format', 'json']);
  assert.equal(named.code, 0, named.stderr);
  assert.equal(JSON.parse(named.stdout).runs[0].pairs.length, 3);
});

test('--max-pairs lowers the limit: 6 OOD sets (15 pairs) are refused under --max-pairs 10', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'six.csv');
  writeCsv(file, manySets(6, 6));
  const r = await genstudy(['analyze', file, '--control', 'id', '--max-pairs', '10']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /6 OOD test sets make 15 pairs, more than --max-pairs 10/);
});

test('progress: analyzeRuns counts each run once and again under each robustness choice; the CLI prints after 5 quiet s, then every 10 s', () => {
  const rows = simulateScores({ runs: 2, steps: 14 }).map((r) =>
    ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, attributes: {}, origin: 'simulated' }));
  const series = buildRunSeries(rows, 'accuracy');
  const calls: [number, number][] = [];
  analyzeRuns(series, { ...DEFAULT_OPTIONS, control: 'in-domain', residualiser: 'linear', calibration: 0 },
    (done, total) => calls.push([done, total]));
  assert.deepEqual(calls, Array.from({ length: 18 }, (_, i) => [i + 1, 18]), '2 runs x (the run itself + 8 choices)');

  let clock = 0;
  const lines: string[] = [];
  const progress = analysisProgress((l) => lines.push(l), () => clock);
  for (const [at, done] of [[1000, 1], [4000, 2], [6000, 3], [12000, 4], [16500, 5], [20000, 10]] as const) {
    clock = at;
    progress(done, 10);
  }
  assert.equal(lines.length, 2, lines.join(''));
  assert.match(lines[0], /^genstudy: analysing: 3 of 10 run analyses .*, 6 s, about 14 s left\n$/);
  assert.match(lines[1], /^genstudy: analysing: 5 of 10 .*, 17 s, about 17 s left\n$/);
});
