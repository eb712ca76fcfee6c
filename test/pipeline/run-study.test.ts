import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseStudy } from '../../src/config/load.ts';
import { runStudy } from '../../src/pipeline/run-study.ts';
import { writeStudyOutputs } from '../../src/pipeline/outputs.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { silentProgress } from '../../src/train/index.ts';
import { NO_PROGRESS } from '../../src/evaluate/index.ts';
import { tinyStudyYaml } from '../support/tiny-study.ts';

// Two seeds of a one-layer model trained for 8 steps, checkpoints every 2: five checkpoints per run;
// `evaluation` adds lines to the study's evaluation section.
const tinyStudy = (name: string, evaluation = '', analysis = '') => tinyStudyYaml({
  name, trainSize: 64, testSize: 12,
  methods: ['{ name: ft, kind: ft, lr: 0.01, steps: 8, batchSize: 8 }'],
  rest: `seeds: [1, 2]
checkpoints: { every: 2 }
evaluation:
  control: in-domain
${evaluation}  testSets: [synthetic]
${analysis}`,
});
const STUDY = tinyStudy('tiny');

function quiet() {
  return { log: () => undefined, trainProgress: silentProgress, evalProgress: NO_PROGRESS };
}

function storeRows(file: string): unknown {
  const store = ResultStore.open(file, { readonly: true });
  try {
    return { runs: store.runs().map((r) => [r.id, r.method, r.seed]), scores: store.scores(), log: store.trainingLog('tiny--synthetic--ft--seed1') };
  } finally {
    store.close();
  }
}

test('a study trains every run, evaluates each checkpoint, analyses, reports, and a rerun does no model work', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-run-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'tiny.yaml');
  fs.writeFileSync(file, STUDY);
  const study = parseStudy(STUDY, file);

  const first = await runStudy(study, file, quiet());
  assert.equal(first.paths.out, path.join(dir, 'tiny'));
  assert.equal(first.work.trainingSteps, 16);
  assert.ok(first.work.answersComputed > 0);
  const store = ResultStore.open(first.paths.store, { readonly: true });
  const runs = store.runs();
  assert.deepEqual(runs.map((r) => r.id), ['tiny--synthetic--ft--seed1', 'tiny--synthetic--ft--seed2']);
  assert.equal(runs[0].method, 'ft');
  assert.equal(runs[0].attributes?.control_test_set, 'in-domain');
  assert.equal(runs[0].attributes?.training_task, undefined, 'no task named: not part of study B matrices');
  const accuracy = store.scores({ run: runs[0].id, metric: 'accuracy' });
  const sets = new Set(accuracy.map((s) => s.testSet));
  assert.ok(sets.has('in-domain') && sets.size >= 5, `scored on ${[...sets].join(', ')}`);
  assert.deepEqual([...new Set(accuracy.map((s) => s.step))], [0, 2, 4, 6, 8]);
  assert.ok(store.trainingLog(runs[0].id).length > 0);
  store.close();

  assert.ok(first.analysis, first.analysisSkipped);
  assert.equal(first.analysis.runs.length, 2);
  assert.equal(first.analysis.runs[0].n, 5);
  // the in-domain set's errors' covariance across checkpoints, from the stored answers (analyze/error-covariance.ts)
  for (const r of first.analysis.runs) assert.equal(r.control_noise?.error_covariance, true, r.run);
  const written = await writeStudyOutputs(study, first);
  assert.ok(fs.existsSync(path.join(written.analysis!, 'analysis.json')));
  assert.deepEqual(fs.readdirSync(path.dirname(first.paths.store)).filter((n) => /-(wal|shm)$/.test(n)), [],
    'every store connection closed (no -wal / -shm left)');
  const html = fs.readFileSync(written.report!, 'utf8');
  assert.match(html, /<svg/);
  assert.doesNotMatch(html, /Study B: training task/);
  // A study on the synthetic suite is checked against the signs the suite was built with.
  assert.match(html, /<section id="designed-vs-found">[\s\S]*<p class="headline" id="design-verdict">(Recovered|Not recovered): /);
  const check = JSON.parse(
    fs.readFileSync(path.join(path.dirname(written.report!), 'designed_vs_found.json'), 'utf8')) as { designed: string; outcome: string }[];
  const suite = JSON.parse(fs.readFileSync(path.join(first.paths.synthetic, 'suite.json'), 'utf8')) as { expectedCorrelations: { sign: string }[] };
  assert.equal(check.filter((r) => r.designed !== 'none').length, suite.expectedCorrelations.filter((e) => e.sign !== 'none').length);
  assert.ok(check.some((r) => r.designed === 'positive') && check.some((r) => r.designed === 'negative'));
  assert.ok(check.every((r) => ['recovered', 'missed', 'wrong sign', 'quiet', 'spurious'].includes(r.outcome)));

  const before = storeRows(first.paths.store);
  const again = await runStudy(study, file, quiet());
  assert.equal(again.work.trainingSteps, 0, 'a finished run is not trained again');
  assert.equal(again.work.answersComputed, 0, 'every answer comes from the cache');
  assert.deepEqual(storeRows(again.paths.store), before);
  assert.deepEqual(again.analysis, first.analysis);

  // A suite folder that is not what this version builds from the options is written again;
  // the rewritten sets have the same content, so the evaluation cache still answers everything.
  const suiteJson = path.join(first.paths.synthetic, 'suite.json');
  const manifest = fs.readFileSync(suiteJson, 'utf8');
  fs.writeFileSync(suiteJson, manifest.replace('"expectedCorrelations"', '"expectedCorrelationsOld"'));
  fs.rmSync(path.join(first.paths.synthetic, 'overlap-broken.jsonl'));
  const third = await runStudy(study, file, quiet());
  assert.equal(fs.readFileSync(suiteJson, 'utf8'), manifest);
  assert.ok(fs.existsSync(path.join(first.paths.synthetic, 'overlap-broken.jsonl')));
  assert.equal(third.work.trainingSteps, 0);
  assert.equal(third.work.answersComputed, 0);
});

test('a study that lists its prompts gets one analysis: the one in analysis/ is the one the report draws', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-run-prompts-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // which analysis the report draws, not what it finds: a 20-simulation calibration (the first test runs the defaults)
  const yaml = tinyStudy('prompted', '  prompts: [1]\n', 'analysis: { calibration: 20 }');
  const file = path.join(dir, 'prompted.yaml');
  fs.writeFileSync(file, yaml);
  const study = parseStudy(yaml, file);
  const result = await runStudy(study, file, quiet());
  // The scores are stored under the variant the prompts name; the analysis reads that same cell.
  const store = ResultStore.open(result.paths.store, { readonly: true });
  const variants = new Set(store.scores().map((s) => s.promptVariant));
  store.close();
  assert.ok(!variants.has(''), `stored variants: ${[...variants].join(', ')}`);
  assert.ok(result.analysis, result.analysisSkipped);
  // the stored answers of that same cell give the control's error covariance
  for (const r of result.analysis.runs) assert.equal(r.control_noise?.error_covariance, true, r.run);
  const written = await writeStudyOutputs(study, result);
  const pipeline = JSON.parse(fs.readFileSync(path.join(written.analysis!, 'analysis.json'), 'utf8')) as
    { runs: { run: string; pairs: { a: string; b: string; r: number | null }[] }[] };
  const report = JSON.parse(fs.readFileSync(path.join(path.dirname(written.report!), 'partial_correlations.json'), 'utf8')) as
    { run: string; a: string; b: string; r: number | null }[];
  const key = (run: string, a: string, b: string) => `${run} ${a} ${b}`;
  const fromPipeline = new Map(pipeline.runs.flatMap((r) => r.pairs.map((p) => [key(r.run, p.a, p.b), p.r] as const)));
  assert.equal(report.length, fromPipeline.size);
  for (const row of report)
    assert.equal(row.r === null ? null : Number(row.r), fromPipeline.get(key(row.run, row.a, row.b)), key(row.run, row.a, row.b));
});
