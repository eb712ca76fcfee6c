import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { loadModel } from '../../src/engine/index.ts';
import { LoraAdapters } from '../../src/engine/builtin/lora.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { seededRandom } from '../../src/seeded-random.ts';
import { buildFirstTokenRequests, syntheticTask } from '../../src/tasks/index.ts';
import { countingLoader, SUITE_ARG, tempDir, tinyRun } from './helpers.ts';

const CONFIG = { r: 2, alpha: 4, dropout: 0, targetModules: ['c_attn', 'c_fc'] };

/** PEFT-format adapters with non-zero B (a fresh adapter would leave the model unchanged). */
async function writeAdapter(baseDir: string, out: string, seed: number): Promise<void> {
  const base = await loadModel(baseDir);
  const adapters = LoraAdapters.create(base, CONFIG, seed);
  const rng = seededRandom(seed, 'test-lora-b');
  for (const p of adapters.pairs) {
    const values = Float32Array.from({ length: p.b.size }, () => (rng.next() - 0.5) * 2);
    p.b.assign(tf.tensor(values, p.b.shape));
  }
  await adapters.save(out, baseDir);
  adapters.dispose();
  base.dispose();
}

test('LoRA adapter checkpoints are evaluated on their base model, as PEFT merges them; merged/ is used when present', async () => {
  const baseDir = path.join(tinyRun([0], 21), 'step-0');
  const runDir = path.join(tempDir(), 'lora-run');
  await writeAdapter(baseDir, path.join(runDir, 'checkpoint-10'), 1);
  await writeAdapter(baseDir, path.join(runDir, 'checkpoint-20'), 2);
  fs.mkdirSync(path.join(runDir, 'checkpoint-30'));
  fs.copyFileSync(path.join(runDir, 'checkpoint-10', 'adapter_config.json'), path.join(runDir, 'checkpoint-30', 'adapter_config.json'));
  await writeAdapter(baseDir, path.join(runDir, 'checkpoint-40'), 4);
  {
    const base = await loadModel(baseDir);
    const adapters = LoraAdapters.load(base, path.join(runDir, 'checkpoint-40'));
    const merged = adapters.merged();
    await merged.save(path.join(runDir, 'checkpoint-40', 'merged'));
    merged.dispose();
    adapters.dispose();
    base.dispose();
  }
  const found = discoverCheckpoints(runDir);
  assert.deepEqual(found.checkpoints.map((c) => [c.step, path.basename(c.dir), c.base]), [
    [10, 'checkpoint-10', baseDir], [20, 'checkpoint-20', baseDir], [40, 'merged', undefined],
  ]);
  assert.match(found.skipped.join('\n'), /checkpoint-30: incomplete checkpoint \(LoRA adapter: no adapter_model\.safetensors\)/);

  const storePath = path.join(tempDir(), 'results.sqlite');
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 5, synthSize: 8 })).slice(0, 2);
  const { loader, counts } = countingLoader();
  await evaluateGrid({ storePath, run: 'lora', checkpoints: found.checkpoints, testSets, variants: promptVariants(), loader });
  assert.equal(counts.loads, 3);
  const store = ResultStore.open(storePath, { readonly: true });
  const hashes = store.checkpoints('lora').map((c) => c.contentHash!);
  assert.match(hashes[0], /^sha256:[0-9a-f]{64}\+lora:[0-9a-f]{64}$/);
  assert.notEqual(hashes[0], hashes[1], 'each adapter is its own checkpoint');
  // Stored log-probs equal the base model with the adapters attached (the unmerged forward).
  const base = await loadModel(baseDir);
  const adapters = LoraAdapters.load(base, path.join(runDir, 'checkpoint-20'));
  adapters.attach();
  const reqs = buildFirstTokenRequests(syntheticTask(), testSets[0].examples.slice(0, 4));
  const direct = await base.firstTokenLogprobs(reqs.map((r) => r.context), reqs[0].candidates);
  adapters.dispose();
  const plain = await base.firstTokenLogprobs(reqs.map((r) => r.context), reqs[0].candidates);
  base.dispose();
  const preds = new Map(store.predictions('lora', 20, testSets[0].id).map((p) => [p.exampleId, p.detail!.logprobs as Record<string, number>]));
  store.close();
  reqs.forEach((r, i) => {
    const lp = preds.get(r.exampleId)!;
    assert.ok(Math.abs(lp.Yes - direct[i][0]) < 1e-4 && Math.abs(lp.No - direct[i][1]) < 1e-4, r.exampleId);
  });
  assert.ok(plain.some((row, i) => Math.abs(row[0] - direct[i][0]) > 1e-3), 'the adapter changes the answers');

  const again = countingLoader();
  await evaluateGrid({ storePath, run: 'lora', checkpoints: found.checkpoints, testSets, variants: promptVariants(), loader: again.loader });
  assert.equal(again.counts.loads, 0);
});

test('an adapter whose base model is not a local folder asks for --base-model', async () => {
  const baseDir = path.join(tinyRun([0], 22), 'step-0');
  const dir = path.join(tempDir(), 'checkpoint-5');
  await writeAdapter(baseDir, dir, 3);
  const cfgFile = path.join(dir, 'adapter_config.json');
  const cfg = JSON.parse(fs.readFileSync(cfgFile, 'utf8'));
  fs.writeFileSync(cfgFile, JSON.stringify({ ...cfg, base_model_name_or_path: 'allenai/OLMo-2-1124-7B' }));
  assert.throws(() => discoverCheckpoints(dir), new RegExp(`${cfgFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ` +
    'a LoRA adapter of base model "allenai/OLMo-2-1124-7B", which is not a local folder; pass --base-model DIR'));
  assert.deepEqual(discoverCheckpoints(dir, { baseModel: baseDir }).checkpoints, [{ step: 5, dir, base: baseDir }]);
});
