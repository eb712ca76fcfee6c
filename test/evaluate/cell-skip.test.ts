// Cells stored from the same inputs are skipped (evaluate/grid.ts, plan.ts cellFingerprint): no
// cache lookup, no rewrite, no model. What must still be evaluated again: a cell whose cached answers
// were dropped (genstudy cache drop), a cell another writer changed, and any cell not stored yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets, type GridOptions } from '../../src/evaluate/index.ts';
import { identifyCheckpoint } from '../../src/engine/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { countingLoader, tempDir, tinyRun } from './helpers.ts';

const SIZE = 12;
const { checkpoints } = discoverCheckpoints(tinyRun([0, 100, 200]));
const sets = await resolveTestSets(['synthetic:in-domain,negation-broken'], { synthSeed: 3, synthSize: SIZE });

const options = (storePath: string, extra: Partial<GridOptions> = {}): GridOptions =>
  ({ storePath, run: 'tiny', checkpoints, testSets: sets, variants: promptVariants(), ...extra });

/** Sets one stored accuracy by hand (as no evaluation would): a cell rewritten by an evaluation loses the mark. */
function mark(storePath: string, step: number, testSet: string): void {
  const db = new Database(storePath);
  try {
    const n = db.prepare(`UPDATE scores SET value = 0.123456 WHERE metric = 'accuracy' AND test_set_id = ?
      AND checkpoint_id = (SELECT id FROM checkpoints WHERE run_id = 'tiny' AND step = ?)`).run(testSet, step).changes;
    assert.equal(n, 1);
  } finally {
    db.close();
  }
}

function marked(storePath: string): string[] {
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    return store.scores({ metric: 'accuracy' }).filter((s) => s.value === 0.123456).map((s) => `${s.step} ${s.testSet}`);
  } finally {
    store.close();
  }
}

test('a cell stored from the same inputs is neither asked nor rewritten; a new test set beside it is evaluated alone', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  await evaluateGrid(options(storePath, { testSets: sets.slice(0, 1), loader: countingLoader().loader }));
  mark(storePath, 100, 'in-domain');
  const again = countingLoader();
  const summary = await evaluateGrid(options(storePath, { loader: again.loader }));
  assert.equal(again.counts.requests, 3 * SIZE, 'only the new test set was asked, on every checkpoint');
  assert.equal(summary.cached, 3 * SIZE);
  assert.deepEqual(marked(storePath), ['100 in-domain'], 'the stored cell was left as it was');

  const third = countingLoader();
  const quiet = await evaluateGrid(options(storePath, { loader: third.loader }));
  assert.deepEqual(third.counts, { loads: 0, calls: 0, requests: 0 });
  assert.deepEqual([quiet.computed, quiet.cached], [0, 2 * 3 * SIZE]);
  assert.equal(quiet.scores.length, 2 * 3 * 3, 'the summary still returns every stored score');
});

test('dropped cached answers make their cells evaluated again; a cell another writer changed is rewritten from the cache', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  await evaluateGrid(options(storePath, { loader: countingLoader().loader }));
  mark(storePath, 0, 'in-domain');
  mark(storePath, 200, 'negation-broken');

  // genstudy cache drop --model <checkpoint 0's key>: its cells are asked of the model again.
  const store = ResultStore.open(storePath);
  try {
    assert.equal(store.evaluation.dropCache({ modelId: identifyCheckpoint(checkpoints[0]).key }), 2 * SIZE);
    // Another writer's scores for a cell: the cell no longer proves where it comes from.
    store.writeScores([{ run: 'tiny', step: 100, testSet: 'in-domain', promptVariant: '', metric: 'accuracy', value: 0.5, n: SIZE }]);
  } finally {
    store.close();
  }
  const again = countingLoader();
  const summary = await evaluateGrid(options(storePath, { loader: again.loader }));
  assert.equal(again.counts.loads, 1, 'checkpoint 0 only');
  assert.equal(again.counts.requests, 2 * SIZE);
  assert.deepEqual(marked(storePath), ['200 negation-broken'], 'checkpoint 0 rewritten, the untouched cell skipped');
  const rewritten = summary.scores.find((s) => s.step === 100 && s.testSet === 'in-domain' && s.metric === 'accuracy')!;
  const predictions = (() => {
    const s = ResultStore.open(storePath, { readonly: true });
    try { return s.predictions('tiny', 100, 'in-domain'); } finally { s.close(); }
  })();
  assert.equal(rewritten.value, predictions.filter((p) => p.prediction === p.gold).length / SIZE, 'the other writer\'s value was replaced');
});
