// A study run again after it finished does no model work and does not start the engine: training
// is proved finished from the checkpoint's state and the model's files, and every cell stored from
// the same inputs (its fingerprint: model key, requests, task, golds, metric options) is skipped
// without per-example work. A changed evaluation setting is not skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parseStudy } from '../../src/config/load.ts';
import { modelLoads } from '../../src/engine/index.ts';
import { NO_PROGRESS } from '../../src/evaluate/index.ts';
import { runStudy } from '../../src/pipeline/run-study.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { silentProgress } from '../../src/train/index.ts';
import { tinyStudyYaml } from '../support/tiny-study.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');

// One seed of a one-layer model trained for 8 steps, checkpoints every 4 (steps 0, 4, 8).
const studyYaml = (evaluation = '', lr = '0.01') => tinyStudyYaml({
  name: 'resumed', trainSize: 48, testSize: 10,
  methods: [`{ name: ft, kind: ft, lr: ${lr}, steps: 8, batchSize: 8 }`],
  rest: `seeds: [1]
checkpoints: { every: 4 }
evaluation:
  control: in-domain
${evaluation}  testSets: [synthetic]`,
});

const quiet = () => ({ log: () => undefined, trainProgress: silentProgress, evalProgress: NO_PROGRESS });

async function run(dir: string, yaml: string) {
  const file = path.join(dir, 'resumed.yaml');
  fs.writeFileSync(file, yaml);
  return runStudy(parseStudy(yaml, file), file, quiet());
}

function scores(store: string, metric: string): number[] {
  const s = ResultStore.open(store, { readonly: true });
  try {
    return s.scores({ metric }).map((r) => r.value);
  } finally {
    s.close();
  }
}

/** The scoring modes the stored predictions record. */
function scoringModes(store: string): string[] {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare(`SELECT DISTINCT json_extract(detail, '$.scoring') AS m FROM predictions ORDER BY 1`).all() as { m: string }[])
      .map((r) => r.m);
  } finally {
    db.close();
  }
}

test('a finished study run again loads no model, starts no engine, and rewrites no stored cell', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-resume-engine-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const first = await run(dir, studyYaml());
  assert.equal(first.work.trainingSteps, 8);
  assert.ok(first.work.modelsLoaded > 0 && first.work.answersComputed > 0, JSON.stringify(first.work));

  // A stored score changed behind the evaluation's back: a resume that skips the cell leaves it.
  const db = new Database(first.paths.store);
  const marked = db.prepare(`UPDATE scores SET value = 0.123456 WHERE metric = 'accuracy' AND test_set_id = 'in-domain'
    AND checkpoint_id = (SELECT id FROM checkpoints WHERE step = 4)`).run().changes;
  db.close();
  assert.equal(marked, 1);

  const loads = modelLoads();
  const again = await run(dir, studyYaml());
  assert.deepEqual(again.work, { answersComputed: 0, answersCached: again.work.answersCached, trainingSteps: 0, modelsLoaded: 0 });
  assert.ok(again.work.answersCached > 0);
  assert.equal(modelLoads(), loads, 'the engine loaded no model (training or evaluation)');
  assert.ok(scores(first.paths.store, 'accuracy').includes(0.123456), 'the stored cell was skipped, not rewritten');

  // In a fresh process, where nothing else started it, the engine never starts.
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/pipeline/resume-child.ts'), path.join(dir, 'resumed.yaml')],
    { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const fresh = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { work: { modelsLoaded: number; answersComputed: number;
    trainingSteps: number }; engineStarted: boolean; log: string[] };
  assert.equal(fresh.engineStarted, false, `the engine started: ${fresh.log.join('\n')}`);
  assert.deepEqual([fresh.work.modelsLoaded, fresh.work.answersComputed, fresh.work.trainingSteps], [0, 0, 0]);
  assert.ok(!fresh.log.some((l) => l.startsWith('genstudy: engine:')), fresh.log.join('\n'));
});

test('a changed evaluation setting is not skipped: other scoring or metric options rewrite the cells, from the cache when it can', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-resume-setting-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const first = await run(dir, studyYaml());
  const firstToken = { accuracy: scores(first.paths.store, 'accuracy'), f1: scores(first.paths.store, 'f1') };
  assert.deepEqual(scoringModes(first.paths.store), ['first-token']);

  // Full-word scoring: the same cells (same test sets and variant names), other requests.
  const fullWord = await run(dir, studyYaml('  scoring: full-word\n'));
  assert.equal(fullWord.work.trainingSteps, 0);
  assert.ok(fullWord.work.answersComputed > 0 && fullWord.work.modelsLoaded > 0, JSON.stringify(fullWord.work));
  assert.deepEqual(scoringModes(first.paths.store), ['full-word'], 'every cell holds the full-word results');

  // Back to first-token: every answer is cached, but the stored cells are full-word's, so each is
  // written again from the cache (no model), never left holding the other setting's results.
  const back = await run(dir, studyYaml());
  assert.deepEqual([back.work.answersComputed, back.work.modelsLoaded], [0, 0]);
  assert.deepEqual(scoringModes(first.paths.store), ['first-token']);
  assert.deepEqual(scores(first.paths.store, 'accuracy'), firstToken.accuracy);

  // Another positive label: the same answers, other F1: rewritten without the model.
  const positive = await run(dir, studyYaml('  positiveLabel: "No"\n'));
  assert.deepEqual([positive.work.answersComputed, positive.work.modelsLoaded], [0, 0]);
  assert.notDeepEqual(scores(first.paths.store, 'f1'), firstToken.f1);
  assert.deepEqual(scores(first.paths.store, 'accuracy'), firstToken.accuracy);

  // Another prompt variant is a cell of its own: evaluated, not taken for the stored one.
  await run(dir, studyYaml('  prompts: [1]\n'));
  const store = ResultStore.open(first.paths.store, { readonly: true });
  try {
    assert.ok(store.scores().some((s) => s.promptVariant === 'prompt-1'), 'the new variant was evaluated');
  } finally {
    store.close();
  }
});

test('a finished run whose training settings changed is still refused, without loading the model', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-resume-changed-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  await run(dir, studyYaml());
  const loads = modelLoads();
  await assert.rejects(run(dir, studyYaml('', '0.02')), /belongs to a run with other settings or data \(fingerprint /);
  assert.equal(modelLoads(), loads);
});
