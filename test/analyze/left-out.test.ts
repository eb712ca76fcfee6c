// One short run (a model still training, a truncated log) is left out with a note and the other
// runs analysed; only when no run has enough checkpoints does analyze stop, with one line.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createRandom } from '../../src/stats/index.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

/** Long-table rows of one run: a rising control and three OOD sets that follow it with noise. */
function rows(run: string, checkpoints: number, seed: number): object[] {
  const rnd = createRandom(seed);
  return Array.from({ length: checkpoints }, (_, t) => {
    const c = 0.5 + 0.3 * (1 - Math.exp(-t / 6));
    return (['id', 'a', 'b', 'd'] as const).map((set, i) => ({
      run, step: t * 100, test_set: set, metric: 'accuracy', value: (set === 'id' ? c : (0.9 - 0.1 * i) * c + 0.01 * rnd.normal()).toFixed(5),
    }));
  }).flat();
}

const FAST = ['--control', 'id', '--calibration', '0', '--no-robustness'];

test('a CSV of three runs, one with 4 checkpoints: analyze exits 0, analyses the two and names the one left out', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), [...rows('long1', 15, 1), ...rows('short', 4, 2), ...rows('long2', 15, 3)]);
  const table = await genstudy(['analyze', join(dir, 's.csv'), ...FAST]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^left out: run short: 4 checkpoints with every test set scored; .* needs at least 5$/m);
  assert.match(table.stdout.trimEnd().split('\n').at(-1)!, /^Across 2 runs, .* 1 run with too few checkpoints was left out \(short\)\.$/);
  const json = await genstudy(['analyze', join(dir, 's.csv'), ...FAST, '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.deepEqual(out.runs.map((r: { run: string }) => r.run), ['long1', 'long2']);
  assert.deepEqual(out.left_out.map((r: { run: string }) => r.run), ['short']);
  assert.equal(out.headline.runs_left_out, 1);
  // --min-checkpoints raises the bar above every run: nothing is left to analyse
  const strict = await genstudy(['analyze', join(dir, 's.csv'), ...FAST, '--format', 'json', '--min-checkpoints', '16']);
  assert.equal(strict.code, 2, strict.stdout);
  assert.match(strict.stderr, /fewer than --min-checkpoints 16/);
});

test('every run short: exit 2 with one line naming them', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), [...rows('s1', 4, 1), ...rows('s2', 3, 2)]);
  const r = await genstudy(['analyze', join(dir, 's.csv'), ...FAST]);
  assert.equal(r.code, 2, r.stdout);
  // the error is the last line of standard error (notes on how the input was read come before it)
  const last = r.stderr.trimEnd().split('\n').at(-1)!;
  assert.match(last, /^genstudy: no run has enough checkpoints: run "s1": 4 checkpoints .*; run "s2": 3 checkpoints .* needs at least 5$/);
});
