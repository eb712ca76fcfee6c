import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { evaluateGrid, promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { loadRegistered } from '../../src/data/index.ts';
import { loadModel } from '../../src/engine/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { buildFirstTokenRequests, demonstrationsFor, STUDY_B_JOIN, studyATask, studyBTask } from '../../src/tasks/index.ts';
import { sharedDir, tempDir } from './helpers.ts';

const dataDir = path.join(sharedDir, 'data');
const golden = path.join(sharedDir, 'golden/engine/gpt2');
const absent = !fs.existsSync(path.join(dataDir, 'ft-generalisation')) || !fs.existsSync(path.join(golden, 'config.json'));
const SKIP = `needs ${dataDir} and ${golden} (shared data and golden models), which are absent`;

test('study B: sst2 with --limit and 0/2-shot ICL from its few-shot file, prompts as study B built them', async (t) => {
  if (absent) return t.skip(SKIP);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const [set] = await resolveTestSets(['study-b/sentiment/sst2:test'], { limit: 6, dataDir });
  const full = await loadRegistered('study-b/sentiment/sst2:test', { dataDir, limit: 6 });
  assert.equal(set.contentHash, full.contentHash);
  const summary = await evaluateGrid({
    storePath, run: 'gpt2', checkpoints: [{ step: 0, dir: golden }], testSets: [set], variants: promptVariants(undefined, [0, 2]), bos: 'study-b',
  });
  assert.equal(summary.computed, 12);
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    assert.deepEqual(store.testSet(set.id)!.n, 6);
    const metrics = store.scores({ run: 'gpt2' }).map((s) => `${s.promptVariant} ${s.metric}`).sort();
    assert.deepEqual(metrics, ['0-shot accuracy', '0-shot f1', '0-shot macro_f1', '2-shot accuracy', '2-shot f1', '2-shot macro_f1']);
    const spec = store.testSet(set.id)!.spec as { variants: Record<string, { demonstrations: string | null; task: { name: string } }> };
    assert.match(spec.variants['2-shot'].demonstrations!, /^first 2 of study-b\/sentiment\/sst2:few-shot/);
    assert.equal(spec.variants['0-shot'].task.name, 'study-b/prompt-1/sentiment');
    // The stored log-probs are the engine's for study B's contexts (bos: study-b, encoded without
    // special tokens): "<s> " + prompt at 0 shots; prompt + output + "\n\n" per demonstration at 2 shots.
    const task = studyBTask('sentiment');
    if (task.kind !== 'classify') throw new Error('sentiment is a classify task');
    const pool = await loadRegistered('study-b/sentiment/sst2:few-shot', { dataDir });
    const model = await loadModel(golden);
    try {
      for (const [variant, build] of [
        ['0-shot', { join: STUDY_B_JOIN }],
        ['2-shot', { join: STUDY_B_JOIN, demonstrations: demonstrationsFor(task, pool.examples, { kind: 'first-k', k: 2 }) }],
      ] as const) {
        const reqs = buildFirstTokenRequests(task, set.examples.slice(0, 2), build);
        if (variant === '0-shot') assert.ok(reqs[0].context.startsWith('<s> ### Input:\n'));
        const direct = await model.firstTokenLogprobs(reqs.map((r) => r.context), reqs[0].candidates, { addSpecialTokens: false });
        const preds = new Map(store.predictions('gpt2', 0, set.id, variant).map((p) => [p.exampleId, p]));
        reqs.forEach((r, i) => {
          const lp = preds.get(r.exampleId)!.detail!.logprobs as Record<string, number>;
          assert.ok(Math.abs(lp.positive - direct[i][0]) < 1e-5 && Math.abs(lp.negative - direct[i][1]) < 1e-5, `${variant} ${r.exampleId}`);
        });
      }
    } finally {
      model.dispose();
    }
  } finally {
    store.close();
  }
});

test('study A: RTE from the registry gets study A\'s pattern and " Yes" / " No" by default', async (t) => {
  if (absent || !fs.existsSync(path.join(dataDir, 'nli/rte/train.tsv'))) return t.skip(SKIP);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const sets = await resolveTestSets(['study-a/rte:train'], { limit: 5, dataDir });
  await evaluateGrid({ storePath, run: 'gpt2', checkpoints: [{ step: 0, dir: golden }], testSets: sets, variants: promptVariants() });
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    const preds = store.predictions('gpt2', 0, 'study-a/rte:train');
    assert.equal(preds.length, 5);
    for (const p of preds) {
      assert.ok(['Yes', 'No'].includes(p.gold!));
      assert.deepEqual(Object.keys(p.detail!.logprobs as object).sort(), ['No', 'Yes']);
    }
    const spec = store.testSet('study-a/rte:train')!.spec as { variants: Record<string, { task: unknown }> };
    assert.deepEqual(spec.variants[''].task, studyATask());
  } finally {
    store.close();
  }
});

test('study B generation (XSum) with its preset: 60 new tokens, cut at the first blank line, ROUGE-L', async (t) => {
  if (absent) return t.skip(SKIP);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const sets = await resolveTestSets(['study-b/summary/xsum:test'], { limit: 2, dataDir });
  const summary = await evaluateGrid({ storePath, run: 'gpt2', checkpoints: [{ step: 0, dir: golden }], testSets: sets, variants: promptVariants() });
  assert.equal(summary.computed, 2);
  const metric = (m: string) => summary.scores.find((s) => s.metric === m)?.value;
  for (const m of ['rouge1_f', 'rouge2_f', 'rougeL_f', 'rougeLsum_f', 'exact_match', 'empty_rate']) assert.equal(typeof metric(m), 'number', m);
  const store = ResultStore.open(storePath, { readonly: true });
  const preds = store.predictions('gpt2', 0, 'study-b/summary/xsum:test');
  const spec = store.testSet('study-b/summary/xsum:test')!.spec as { variants: Record<string, { task: { name: string; maxNewTokens: number } }> };
  store.close();
  assert.equal(spec.variants[''].task.name, 'study-b/prompt-1/summary');
  assert.equal(spec.variants[''].task.maxNewTokens, 60);
  for (const p of preds) {
    assert.equal(typeof p.detail!.raw, 'string');
    assert.ok(!p.prediction!.includes('\n\n'));
    assert.equal(p.gold, sets[0].examples.find((e) => e.id === p.exampleId)!.target);
  }
});
