// A checkpoint is its content and a run is where its checkpoints come from: a folder
// replaced while watch runs is evaluated again, its earlier scores kept as superseded and named;
// trainings whose folders share a base name (exp1/output, exp2/output) stay separate runs, and a
// run is not fed from a second folder unless --run says so; two folders for one step are refused
// by watch as by evaluate. Real tiny models on disk, a real SQLite store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { identifyCheckpoint } from '../../src/engine/index.ts';
import { defaultRunName, promptVariants, resolveTestSets, type ProgressSink } from '../../src/evaluate/index.ts';
import { watchRun, type WatchRound } from '../../src/pipeline/watch.ts';
import { loadReportData } from '../../src/report/report-data.ts';
import { MIGRATIONS } from '../../src/store/schema.ts';
import { suiteVocabulary } from '../../src/synth/index.ts';
import { syntheticTask } from '../../src/tasks/index.ts';
import { writeTinyRun } from '../evaluate/tiny-model.ts';
import { countRows, tempDir } from '../evaluate/helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const VOCAB = suiteVocabulary(syntheticTask());
const SET = ['--test-set', 'synthetic:in-domain', '--synthetic-size', '4'];

/** Writes checkpoint-<step> of the training seeded `seed` as a trainer does: staged, then renamed into place (replacing one there). */
function writeCheckpoint(runDir: string, step: number, seed: number, name = `checkpoint-${step}`): string {
  const staging = tempDir('genstudy-identity-staging-');
  writeTinyRun(staging, { vocabulary: VOCAB, seed }, [step]);
  const dir = path.join(runDir, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(path.join(staging, `step-${step}`), dir);
  return dir;
}

function notes(): { sink: ProgressSink; lines: string[] } {
  const lines: string[] = [];
  return { lines, sink: { start() {}, advance() {}, note: (l) => lines.push(l), stop() {} } };
}

function storeRows<T>(storePath: string, sql: string): T[] {
  const db = new Database(storePath, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

test('watch: a checkpoint folder replaced while it runs is evaluated again, its earlier scores superseded and named; a ' +
  'restart adds none', async () => {
  const runDir = path.join(tempDir(), 'trainer-out');
  fs.mkdirSync(runDir);
  const first = writeCheckpoint(runDir, 100, 9);
  const firstWeights = identifyCheckpoint({ step: 100, dir: first }).weights;
  const storePath = path.join(tempDir(), 'results.sqlite');
  const testSets = await resolveTestSets(['synthetic:in-domain'], { synthSeed: 2, synthSize: 4 });
  const base = { storePath, run: 'watched', testSets, variants: promptVariants(), runDir };
  const log: string[] = [];
  const { sink, lines } = notes();
  const controller = new AbortController();
  const rounds: WatchRound[] = [];
  await watchRun({
    ...base, intervalMs: 100, signal: controller.signal, progress: sink, log: (l) => log.push(l),
    onRound: (round) => {
      rounds.push(round);
      // The trainer restarted into the same folder: a new training's checkpoint-100 replaces the old.
      if (rounds.length === 1) writeCheckpoint(runDir, 100, 11);
      // Bounded, so that a watcher that never looks again ends the test instead of hanging it.
      if (rounds.length >= 2 && (round.evaluated.length > 0 || rounds.length >= 6)) controller.abort();
    },
  });
  assert.deepEqual(rounds.map((r) => r.evaluated).filter((e) => e.length > 0), [[100], [100]], 'evaluated, then evaluated again once replaced');
  const secondWeights = identifyCheckpoint({ step: 100, dir: path.join(runDir, 'checkpoint-100') }).weights;
  assert.notEqual(secondWeights, firstWeights);
  assert.match(log.join('\n'), new RegExp(`step 100: .*checkpoint-100 changed since it was evaluated \\(weights ${firstWeights} -> ` +
    `${secondWeights}; evaluating it again, its earlier scores moved to superseded_scores\\)`));
  const perCheckpoint = countRows(storePath, 'scores');
  assert.match(lines.join('\n'), new RegExp(`run "watched" step 100: the weights in .*checkpoint-100 differ from the ones evaluated before; ` +
    `re-evaluating; its earlier ${perCheckpoint} scores and 4 predictions \\(runs watched\\) were moved to superseded_scores`));
  assert.equal(countRows(storePath, 'superseded_scores'), perCheckpoint);
  const stored = storeRows<{ content_hash: string }>(storePath, `SELECT content_hash FROM checkpoints WHERE run_id = 'watched' AND step = 100`);
  assert.deepEqual(stored.map((r) => r.content_hash), [secondWeights], 'the store holds the weights now in the folder');
  // The run's provenance in the report names what was superseded.
  const superseded = loadReportData(storePath).superseded!;
  assert.equal(superseded.length, 1);
  assert.deepEqual([superseded[0].run, superseded[0].steps, superseded[0].scores], ['watched', [100], perCheckpoint]);
  assert.match(superseded[0].reason, new RegExp(`checkpoint weights changed: ${firstWeights} -> ${secondWeights}`));

  // A restarted watcher finds the store's hash equal to the folder's: nothing superseded again, nothing recomputed.
  const again: WatchRound[] = [];
  await watchRun({ ...base, once: true, onRound: (r) => again.push(r) });
  assert.deepEqual(again[0].evaluated, [100]);
  assert.equal(again[0].summary!.computed, 0);
  assert.equal(countRows(storePath, 'superseded_scores'), perCheckpoint);
});

test('two trainings whose folders share a base name stay two runs; a second folder under one run is refused unless --run names it', async () => {
  const root = tempDir();
  for (const [exp, seed] of [['exp1', 3], ['exp2', 5]] as const) writeTinyRun(path.join(root, exp, 'output'), { vocabulary: VOCAB, seed }, [100]);
  const storePath = path.join(tempDir(), 'results.sqlite');
  for (const exp of ['exp1', 'exp2']) {
    const r = await genstudy(['evaluate', '--model', path.join(root, exp, 'output'), ...SET, '--store', storePath]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`run "${exp}/output"`));
  }
  const runs = storeRows<{ id: string; checkpoint_folder: string }>(storePath, `SELECT id, checkpoint_folder FROM runs ORDER BY id`);
  assert.deepEqual(runs, [
    { id: 'exp1/output', checkpoint_folder: fs.realpathSync(path.join(root, 'exp1', 'output')) },
    { id: 'exp2/output', checkpoint_folder: fs.realpathSync(path.join(root, 'exp2', 'output')) },
  ]);
  assert.equal(countRows(storePath, 'superseded_scores'), 0, 'neither training displaced the other');
  assert.equal(defaultRunName('/x/exp1/checkpoints'), 'exp1/checkpoints');
  assert.equal(defaultRunName('/x/runs/mnli-lora'), 'mnli-lora', 'a name that says something stays as it was');

  // Names that collide anyway (a/trial, b/trial): the second folder is refused, by evaluate and watch alike.
  for (const [parent, seed] of [['a', 3], ['b', 5]] as const) writeTinyRun(path.join(root, parent, 'trial'), { vocabulary: VOCAB, seed }, [100]);
  const trialA = fs.realpathSync(path.join(root, 'a', 'trial'));
  const trialB = fs.realpathSync(path.join(root, 'b', 'trial'));
  assert.equal((await genstudy(['evaluate', '--model', trialA, ...SET, '--store', storePath])).code, 0);
  const scoresBefore = countRows(storePath, 'scores');
  const refusal = `genstudy: ${storePath}: run "trial" holds checkpoints from ${trialA}, not from ${trialB}; pass --run NAME to store these ` +
    'under a run of their own, or --run "trial" to add them to it\n';
  const evaluated = await genstudy(['evaluate', '--model', trialB, ...SET, '--store', storePath]);
  assert.equal(evaluated.code, 2);
  assert.equal(evaluated.stderr, refusal);
  const watched = await genstudy(['watch', trialB, ...SET, '--store', storePath, '--once']);
  assert.equal(watched.code, 2);
  assert.equal(watched.stderr, refusal);
  assert.equal(countRows(storePath, 'scores'), scoresBefore, 'nothing of b/trial stored');
  assert.equal(countRows(storePath, 'superseded_scores'), 0);

  // --run given: the researcher means one run; it says so, and the run keeps its first folder.
  const joined = await genstudy(['evaluate', '--model', trialB, ...SET, '--store', storePath, '--run', 'trial']);
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(joined.stderr, new RegExp(`run "trial" of .* holds checkpoints from ${trialA}; adding those of ${trialB} to it, as --run asks`));
  assert.deepEqual(storeRows(storePath, `SELECT checkpoint_folder FROM runs WHERE id = 'trial'`), [{ checkpoint_folder: trialA }]);
});

test('a run stored before its folder was recorded (migration 5) is known by its checkpoints\' paths', async () => {
  const root = tempDir();
  const storePath = path.join(tempDir(), 'results.sqlite');
  // A store as genstudy left it at schema version 4: the run's checkpoint with its path, no folder column.
  const db = new Database(storePath);
  for (const migration of MIGRATIONS.slice(0, 4)) db.exec(migration);
  db.pragma('user_version = 4');
  db.prepare(`INSERT INTO runs (id) VALUES ('trial')`).run();
  db.prepare(`INSERT INTO checkpoints (run_id, step, path) VALUES ('trial', 100, ?)`).run(path.join(root, 'a', 'trial', 'step-100'));
  db.close();
  writeTinyRun(path.join(root, 'b', 'trial'), { vocabulary: VOCAB, seed: 5 }, [100]);
  const r = await genstudy(['evaluate', '--model', path.join(root, 'b', 'trial'), ...SET, '--store', storePath]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`run "trial" holds checkpoints from ${path.join(root, 'a', 'trial')}, not from .*b/trial; pass --run`));
});

test('two folders for one step (checkpoint-100 and step-100): watch refuses them as evaluate does, and stores nothing', async () => {
  const runDir = path.join(tempDir(), 'trainer-out');
  fs.mkdirSync(runDir);
  writeCheckpoint(runDir, 100, 9);
  writeCheckpoint(runDir, 100, 11, 'step-100');
  writeCheckpoint(runDir, 200, 9);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const expected = `genstudy: ${runDir}: two checkpoint folders for step 100 (checkpoint-100 and step-100); move one of them out of the folder\n`;
  const evaluated = await genstudy(['evaluate', '--model', runDir, ...SET, '--store', storePath]);
  assert.equal(evaluated.code, 2);
  assert.equal(evaluated.stderr, expected);
  const watched = await genstudy(['watch', runDir, ...SET, '--store', storePath, '--once']);
  assert.equal(watched.code, 2);
  assert.equal(watched.stderr, expected);
  assert.equal(fs.existsSync(storePath) ? countRows(storePath, 'scores') : 0, 0);
  await assert.rejects(watchRun({ runDir, storePath, run: 'x', testSets: await resolveTestSets(['synthetic:in-domain'], { synthSize: 4 }),
    variants: promptVariants(), once: true }), /two checkpoint folders for step 100/);
});
