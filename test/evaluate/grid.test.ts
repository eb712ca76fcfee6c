import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets, type GridOptions, type ProgressSink,
} from '../../src/evaluate/index.ts';
import { loadModel } from '../../src/engine/index.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { accuracy, binaryF1, macroF1 } from '../../src/metrics/index.ts';
import { buildFirstTokenRequests, buildFullWordRequests, syntheticTask } from '../../src/tasks/index.ts';
import { countingLoader, dumpStore, STEPS, SUITE_ARG, SUITE_SETS, tempDir, tinyRun } from './helpers.ts';

const SIZE = 16;
const runDir = tinyRun();
const { checkpoints } = discoverCheckpoints(runDir);
const testSets = await resolveTestSets([SUITE_ARG], { synthSeed: 3, synthSize: SIZE });

function notes(): { sink: ProgressSink; lines: string[] } {
  const lines: string[] = [];
  return { lines, sink: { start() {}, advance() {}, note: (l) => lines.push(l), stop() {} } };
}

function options(storePath: string, extra: Partial<GridOptions> = {}): GridOptions {
  return { storePath, run: 'tiny', checkpoints, testSets, variants: promptVariants(), ...extra };
}

test('5 checkpoints x ID + 4 OOD sets fill the store; a second run does no model work', async () => {
  assert.deepEqual(checkpoints.map((c) => c.step), STEPS);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const first = countingLoader();
  const a = await evaluateGrid(options(storePath, { loader: first.loader }));
  assert.equal(first.counts.loads, 5);
  assert.equal(first.counts.requests, 5 * 5 * SIZE, 'every example asked once');
  assert.equal(a.computed, 5 * 5 * SIZE);
  assert.equal(a.cached, 0);

  const store = ResultStore.open(storePath, { readonly: true });
  try {
    assert.deepEqual(store.checkpoints('tiny').map((c) => c.step), STEPS);
    for (const set of testSets) {
      const rec = store.testSet(set.id)!;
      assert.equal(rec.contentHash, set.contentHash);
      assert.equal(rec.n, SIZE);
    }
    const scores = store.scores({ run: 'tiny' });
    assert.equal(scores.length, 5 * 5 * 3, 'accuracy, f1 and macro_f1 per checkpoint and test set');
    assert.deepEqual([...new Set(scores.map((s) => s.metric))].sort(), ['accuracy', 'f1', 'macro_f1']);
    assert.deepEqual([...new Set(scores.map((s) => s.testSet))].sort(), [...SUITE_SETS].sort());
    // Metrics agree with the stored predictions, and predictions with the model asked directly.
    const task = syntheticTask();
    const model = await loadModel(checkpoints[2].dir);
    try {
      for (const set of testSets) {
        const preds = store.predictions('tiny', 200, set.id);
        assert.equal(preds.length, SIZE);
        const byId = new Map(preds.map((p) => [p.exampleId, p]));
        const golds = set.examples.map((e) => e.label!);
        const predicted = set.examples.map((e) => byId.get(e.id)!.prediction!);
        assert.deepEqual(set.examples.map((e) => byId.get(e.id)!.gold), golds);
        const got = (m: string) => scores.find((s) => s.step === 200 && s.testSet === set.id && s.metric === m)!;
        assert.equal(got('accuracy').value, accuracy(predicted, golds));
        assert.equal(got('f1').value, binaryF1(predicted, golds, 'Yes'));
        assert.equal(got('macro_f1').value, macroF1(predicted, golds, ['Yes', 'No']));
        assert.equal(got('accuracy').n, SIZE);
        const reqs = buildFirstTokenRequests(task, set.examples.slice(0, 3));
        const direct = await model.firstTokenLogprobs(reqs.map((r) => r.context), reqs[0].candidates);
        reqs.forEach((r, i) => {
          const lp = byId.get(r.exampleId)!.detail!.logprobs as Record<string, number>;
          assert.ok(Math.abs(lp.Yes - direct[i][0]) < 1e-5 && Math.abs(lp.No - direct[i][1]) < 1e-5, `${set.id} ${r.exampleId}`);
        });
      }
    } finally {
      model.dispose();
    }
    // The random checkpoints are not all alike: the grid measured real differences.
    assert.ok(new Set(scores.filter((s) => s.metric === 'accuracy').map((s) => s.value)).size > 3);
  } finally {
    store.close();
  }

  const before = dumpStore(storePath);
  const second = countingLoader();
  const b = await evaluateGrid(options(storePath, { loader: second.loader }));
  assert.deepEqual(second.counts, { loads: 0, calls: 0, requests: 0 }, 'no model loaded, no engine call');
  assert.equal(b.computed, 0);
  assert.equal(b.cached, 5 * 5 * SIZE);
  assert.deepEqual(dumpStore(storePath), before, 'the same store');
  assert.deepEqual(b.scores, a.scores);
});

test('the cache is shared by content: another run name with the same weights does no model work', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  await evaluateGrid(options(storePath, { checkpoints: checkpoints.slice(0, 2), loader: countingLoader().loader }));
  const again = countingLoader();
  const s = await evaluateGrid(options(storePath, { run: 'same-weights-other-name', checkpoints: checkpoints.slice(0, 2), loader: again.loader }));
  assert.equal(again.counts.calls, 0);
  assert.equal(s.scores.length, 2 * 5 * 3);
  // A third checkpoint is new work, and only that.
  const third = countingLoader();
  await evaluateGrid(options(storePath, { checkpoints: checkpoints.slice(0, 3), loader: third.loader }));
  assert.equal(third.counts.loads, 1);
  assert.equal(third.counts.requests, 5 * SIZE);
});

test('prompt variants (k-shot) are cells of their own; full-word scoring adds acc_norm', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  const sets = testSets.slice(0, 2);
  const { loader, counts } = countingLoader();
  await evaluateGrid(options(storePath, {
    checkpoints: checkpoints.slice(3, 4), testSets: sets, variants: promptVariants(undefined, [0, 2]), scoring: 'full-word', loader,
  }));
  assert.equal(counts.requests, 2 * 2 * SIZE * 2, 'two labels scored per example');
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    const scores = store.scores({ run: 'tiny' });
    assert.deepEqual([...new Set(scores.map((s) => s.promptVariant))].sort(), ['0-shot', '2-shot']);
    assert.deepEqual([...new Set(scores.map((s) => s.metric))].sort(), ['acc_norm', 'accuracy', 'f1', 'macro_f1']);
    const task = { ...syntheticTask(), scoring: 'full-word' as const };
    const model = await loadModel(checkpoints[3].dir);
    try {
      const preds = store.predictions('tiny', 300, sets[0].id, '2-shot');
      const spec = (store.testSet(sets[0].id)!.spec as { variants: Record<string, { demonstrations: string }> }).variants['2-shot'];
      assert.match(spec.demonstrations, /first 2 of .*training set/);
      const p = preds[0];
      const ex = sets[0].examples.find((e) => e.id === p.exampleId)!;
      // The 2-shot context holds two demonstrations; its stored log-probs are the engine's for it.
      const { demonstrationsFor } = await import('../../src/tasks/index.ts');
      const { resolveTestSetArg } = await import('../../src/evaluate/index.ts');
      const [withPool] = await resolveTestSetArg(`synthetic:${sets[0].id}`, { synthSeed: 3, synthSize: SIZE });
      const pool = await withPool.demonstrationPool!();
      const reqs = buildFullWordRequests(task, [ex], { demonstrations: demonstrationsFor(task, pool.examples, { kind: 'first-k', k: 2 }) });
      const direct = await model.score(reqs);
      const lp = p.detail!.logprobs as Record<string, number>;
      assert.ok(Math.abs(lp.Yes - direct[0].logprob) < 1e-4 && Math.abs(lp.No - direct[1].logprob) < 1e-4);
    } finally {
      model.dispose();
    }
  } finally {
    store.close();
  }
  // The plain prompt asks what the 0-shot variant asked: answered from the cache, described beside the others.
  const plain = countingLoader();
  await evaluateGrid(options(storePath, { checkpoints: checkpoints.slice(3, 4), testSets: sets, scoring: 'full-word', loader: plain.loader }));
  assert.equal(plain.counts.calls, 0);
  const again = ResultStore.open(storePath, { readonly: true });
  const variants = Object.keys((again.testSet(sets[0].id)!.spec as { variants: object }).variants).sort();
  again.close();
  assert.deepEqual(variants, ['', '0-shot', '2-shot']);
});

test('a changed test set (same id, other content) is re-evaluated and said so; old rows are kept', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  const cps = checkpoints.slice(0, 2);
  await evaluateGrid(options(storePath, { checkpoints: cps, loader: countingLoader().loader }));
  const before = dumpStore(storePath);
  const changed = await resolveTestSets([SUITE_ARG], { synthSeed: 3, synthSize: SIZE, limit: SIZE - 4 });
  const { sink, lines } = notes();
  const { loader, counts } = countingLoader();
  await evaluateGrid(options(storePath, { checkpoints: cps, testSets: changed, loader, progress: sink }));
  assert.equal(counts.requests, 2 * 5 * (SIZE - 4), 'the changed sets are evaluated again');
  assert.equal(lines.filter((l) => /changed since it was stored/.test(l)).length, 5, lines.join('\n'));
  assert.match(lines[0], new RegExp(
    /test set "in-domain" changed since it was stored \(content hash [0-9a-f]{12}…, n=16 -> [0-9a-f]{12}…, n=12\); /.source +
    /re-evaluating it; its earlier 6 scores and 32 predictions \(runs tiny\) were moved/.source));
  const after = dumpStore(storePath);
  assert.equal(after.scores.length, before.scores.length);
  assert.equal(after.predictions.length, 2 * 5 * (SIZE - 4));
  // Nothing stored is lost: the old scores and predictions are in the superseded tables, the old answers in the cache.
  assert.deepEqual(
    after.superseded_scores.map((r) => { const { test_set_hash: _h, reason: _r, ...rest } = r as Record<string, unknown>; return rest; }),
    before.scores.map((r) => {
      const { run_id, step, test_set_id, prompt_variant, metric, value, n } = r as Record<string, unknown>;
      return { run_id, step, test_set_id, prompt_variant, metric, value, n };
    }));
  assert.equal(after.superseded_predictions.length, before.predictions.length);
  for (const old of before.cache) assert.ok(after.cache.some((c) => (c as { key: string }).key === (old as { key: string }).key));
  for (const s of after.test_sets as { n: number }[]) assert.equal(s.n, SIZE - 4);
});

test('a checkpoint whose weights changed under the same run and step is re-evaluated; its old rows are kept', async () => {
  const dir = tinyRun([0, 100, 200], 11);
  const cps = discoverCheckpoints(dir).checkpoints.slice(0, 2);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const sets = testSets.slice(0, 1);
  await evaluateGrid(options(storePath, { checkpoints: cps, testSets: sets }));
  const before = dumpStore(storePath);
  const fs = await import('node:fs');
  fs.copyFileSync(path.join(dir, 'step-200', 'model.safetensors'), path.join(dir, 'step-100', 'model.safetensors'));
  const { sink, lines } = notes();
  const { loader, counts } = countingLoader();
  await evaluateGrid(options(storePath, { checkpoints: cps, testSets: sets, loader, progress: sink }));
  assert.equal(counts.loads, 1, 'only the changed checkpoint');
  assert.match(lines.join('\n'), new RegExp(
    /run "tiny" step 100: the weights in .*step-100 differ from the ones evaluated before; re-evaluating; /.source +
    /its earlier 3 scores and 16 predictions \(runs tiny\) were moved/.source));
  const after = dumpStore(storePath);
  assert.equal(after.superseded_scores.length, 3);
  assert.deepEqual(after.scores.filter((r) => (r as { step: number }).step === 0), before.scores.filter((r) => (r as { step: number }).step === 0));
  const hashes = (after.checkpoints as { step: number; content_hash: string }[]).map((c) => c.content_hash);
  assert.notEqual(hashes[1], (before.checkpoints as { content_hash: string }[])[1].content_hash);
});
