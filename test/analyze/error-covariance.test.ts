// The control's error covariance from per-example results (analyze/error-covariance.ts), here a
// results store's answers (analyze/store-example-results.ts): a real SQLite store holding a fixed test set's answers at
// every checkpoint, as genstudy's evaluations write them (src/evaluate/cell-metrics.ts: a
// prediction per example, accuracy the share equal to the gold, acc_norm the share whose
// detail.predictionNorm equals it).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'node:test';
import { ResultStore, type PredictionRecord, type StoredScore } from '../../src/store/result-store.ts';
import { buildRunSeries, type RunSeries } from '../../src/analyze/run-series.ts';
import { attachErrorCovariance } from '../../src/analyze/error-covariance.ts';
import { storeExampleResults } from '../../src/analyze/store-example-results.ts';
import { renameRuns } from '../../src/analyze/run-names.ts';
import { readScoreInput, readStoreScores } from '../../src/analyze/read-scores.ts';
import { shareCovariance } from '../../src/stats/example-covariance.ts';
import { createRandom } from '../../src/stats/random.ts';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { formatJson } from '../../src/analyze/format.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir } from './helpers.ts';

const STEPS = Array.from({ length: 14 }, (_, i) => 100 * (i + 1));
const N = 120;

interface Made { store: string; right: Map<string, Uint8Array[]> }

/**
 * Runs scored on one fixed in-domain set of N examples whose answers mostly persist between
 * checkpoints, and three OOD sets given as scores only. `answers` says which runs store answers.
 */
function makeStore(dir: string, opts: { runs?: string[]; answers?: (run: string) => boolean; metric?: 'accuracy' | 'acc_norm' } = {}): Made {
  const file = join(dir, 'results.sqlite');
  const store = ResultStore.open(file);
  const random = createRandom(7);
  const right = new Map<string, Uint8Array[]>();
  const metric = opts.metric ?? 'accuracy';
  try {
    for (const run of opts.runs ?? ['a', 'b', 'c']) {
      store.upsertRun({ id: run });
      const scores: StoredScore[] = [];
      const predictions: PredictionRecord[] = [];
      let current = Uint8Array.from({ length: N }, () => (random.uniform() < 0.4 ? 1 : 0));
      const series: Uint8Array[] = [];
      STEPS.forEach((step, k) => {
        current = Uint8Array.from(current, (x) => (random.uniform() < 0.1 + 0.01 * k ? (random.uniform() < 0.6 ? 1 : 0) : x));
        series.push(current);
        const share = current.reduce((t, x) => t + x, 0) / N;
        scores.push({ run, step, testSet: 'id', metric, value: share, n: N });
        for (const set of ['ood1', 'ood2', 'ood3']) {
          scores.push({ run, step, testSet: set, metric, value: 0.3 + 0.02 * k + 0.03 * random.normal(), n: 500 });
        }
        current.forEach((x, i) => {
          const gold = i % 2 ? 'yes' : 'no', wrong = i % 2 ? 'no' : 'yes';
          const answer = x ? gold : wrong;
          predictions.push({
            run, step, testSet: 'id', exampleId: `ex${String(i).padStart(4, '0')}`, gold,
            prediction: metric === 'accuracy' ? answer : wrong, detail: metric === 'acc_norm' ? { predictionNorm: answer } : {},
          });
        });
      });
      store.writeScores(scores);
      if (opts.answers?.(run) ?? true) store.writePredictions(predictions);
      right.set(run, series);
    }
  } finally {
    store.close();
  }
  return { store: file, right };
}

function seriesOf(file: string, metric = 'accuracy'): RunSeries[] {
  return buildRunSeries(readStoreScores(file, ''), metric);
}

function attach(file: string, series: RunSeries[], metric = 'accuracy'): string[] {
  return attachErrorCovariance(series, storeExampleResults(file, ''), { metric, testSets: ['id'] });
}

test('each run\'s control gets the covariance of its stored answers, whose diagonal is the scores\' p(1 - p)/n', (t) => {
  for (const metric of ['accuracy', 'acc_norm'] as const) {
    const made = makeStore(tempDir(t), { metric });
    const series = seriesOf(made.store, metric);
    assert.deepEqual(attach(made.store, series, metric), []);
    for (const s of series) {
      const got = s.samplingCovariance?.get('id');
      assert.ok(got, `run ${s.run}: no covariance`);
      assert.deepEqual([...got], [...shareCovariance(made.right.get(s.run)!)]);
      const c = s.steps.length, values = s.values.get('id')!;
      for (let k = 0; k < c; k++) assert.ok(Math.abs(got[k * c + k] - values[k] * (1 - values[k]) / N) < 1e-15);
      assert.ok(got[1] > 0.5 * got[0], 'persistent answers: successive checkpoints\' errors are strongly correlated');
      assert.equal(s.samplingCovariance!.has('ood1'), false, 'only the test sets asked for');
    }
  }
});

test('a metric that is not a share of right answers, or a store without answers, gets none, silently', (t) => {
  const made = makeStore(tempDir(t), { answers: () => false });
  const series = seriesOf(made.store);
  assert.deepEqual(attach(made.store, series), []);
  assert.ok(series.every((s) => s.samplingCovariance === undefined));
  const withAnswers = makeStore(tempDir(t));
  const other = seriesOf(withAnswers.store);
  assert.deepEqual(attach(withAnswers.store, other, 'f1'), []);
  assert.ok(other.every((s) => s.samplingCovariance === undefined));
});

test('answers missing at a kept checkpoint, or not giving the stored score, are named and not used', (t) => {
  const made = makeStore(tempDir(t));
  const db = new Database(made.store);
  db.prepare(`DELETE FROM predictions WHERE checkpoint_id IN (SELECT id FROM checkpoints WHERE run_id = 'a' AND step = 300)`).run();
  db.close();
  const store = ResultStore.open(made.store);
  try {
    store.writeScores([{ run: 'b', step: 500, testSet: 'id', metric: 'accuracy', value: 0.123, n: N }]);
    store.writePredictions([{ run: 'c', step: 700, testSet: 'id', exampleId: 'ex9999', prediction: 'x', gold: 'y' }]);
  } finally {
    store.close();
  }
  const series = seriesOf(made.store);
  const notes = attach(made.store, series);
  assert.equal(notes.length, 3);
  assert.match(notes[0],
    /^run "a", id: no per-example results at 1 of its 14 checkpoints \(e\.g\. step 300\); its accuracy's sampling errors are taken as independent/);
  assert.match(notes[1], /^run "b", id: the results at step 500 give 0\.\d+, not its score 0\.123/);
  assert.match(notes[2], /^run "c", id: the results at step 700 are on other examples than at another checkpoint \(121 and 120\)/);
  assert.deepEqual(series.map((s) => s.samplingCovariance !== undefined), [false, false, false]);
});

test('renamed runs find their answers under the name the store gives them', async (t) => {
  const made = makeStore(tempDir(t), { runs: ['/ckpt/a', '/ckpt/b'] });
  const reading = renameRuns(await readScoreInput(made.store), { stripPrefix: '/ckpt/' });
  const series = buildRunSeries(reading.scores, 'accuracy');
  assert.deepEqual(series.map((s) => s.run), ['a', 'b']);
  assert.deepEqual(attach(made.store, series), []);
  assert.deepEqual([...series[1].samplingCovariance!.get('id')!], [...shareCovariance(made.right.get('/ckpt/b')!)]);
});

test('genstudy analyze of a store uses the answers: the control\'s correction says so, and equals the analysis given the covariance', async (t) => {
  const made = makeStore(tempDir(t));
  const args = [made.store, '--control', 'id', '--format', 'json', '--calibration', '0', '--no-robustness'];
  const { code, stdout, stderr } = await genstudy(['analyze', ...args]);
  assert.equal(code, 0, stderr);
  const out = JSON.parse(stdout);
  assert.match(stderr, /: genstudy results store \(with each checkpoint's per-example answers\): /);
  for (const run of out.runs) assert.equal(run.control_noise.error_covariance, true, `run ${run.run}`);
  assert.doesNotMatch(out.headline.sentence, /Caveat/);
  const series = seriesOf(made.store);
  attach(made.store, series);
  const library = analyzeRuns(series, { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false });
  assert.deepEqual(out, JSON.parse(formatJson(library)));
  const bare = makeStore(tempDir(t), { answers: () => false });
  const bareRun = await genstudy(['analyze', bare.store, ...args.slice(1)]);
  assert.match(bareRun.stderr, /: genstudy results store: /);
  const without = JSON.parse(bareRun.stdout);
  for (const run of without.runs) assert.equal(run.control_noise.error_covariance, undefined);
  assert.notDeepEqual(without.runs.map((r: { pairs: { r: number }[] }) => r.pairs.map((p) => p.r)),
    out.runs.map((r: { pairs: { r: number }[] }) => r.pairs.map((p) => p.r)), 'the covariance changes the correction');
});
