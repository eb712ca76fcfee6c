// Weights packed once for inference (src/engine/builtin/native/packed-weights.ts): scores equal the
// unpacked products', only the model's weights are packed, and a packed copy never outlives its
// weight's values (written in place, disposed, or a training step begun). Skipped where the native
// path is not in use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { enginePath, INIT_FAMILIES, initBackend, loadModel, onTrainingPool, type InitFamily } from '../../src/engine/index.ts';
import { nativeMatMulActive } from '../../src/engine/builtin/native/matmul-kernel.ts';
import { packedWeightsHeld, packedWeightStats, setWeightPacking } from '../../src/engine/builtin/native/packed-weights.ts';
import { scoreTokens } from '../../src/engine/builtin/scoring.ts';
import { forgetDerivedData } from '../../src/engine/builtin/written-in-place.ts';
import type { WasmBackend } from '../../src/engine/builtin/wasm-backend.ts';
import type { BuiltinModel } from '../../src/engine/builtin/model.ts';
import { tinyModelDir } from '../train/helpers.ts';

const PAIRS = [
  { context: 'the cat sat on the', continuation: ' mat' }, { context: 'a dog ran to', continuation: ' the park and back' },
  { context: 'one two three four five six seven', continuation: ' eight' }, { context: 'x', continuation: ' y z' },
];

async function nativeModel(t: { skip(msg: string): void }, kind: InitFamily): Promise<BuiltinModel | undefined> {
  await initBackend();
  if (!nativeMatMulActive()) {
    t.skip(`the native path is not in use here (${enginePath()})`);
    return undefined;
  }
  // Wide enough that the products go to onnxruntime (small ones stay on wasm); two rows per batch.
  return loadModel(await tinyModelDir(kind, { hidden: 128, layers: 2 }), { maxBatchTokens: 32 });
}

async function unpacked<T>(fn: () => Promise<T>): Promise<T> {
  setWeightPacking(false);
  try {
    return await fn();
  } finally {
    setWeightPacking(true);
  }
}

const logprobs = async (m: BuiltinModel) => (await scoreTokens(m, PAIRS)).flatMap((r) => r.tokenLogprobs);

for (const kind of INIT_FAMILIES) {
  test(`${kind}: packed weights score as the products with weights as inputs do, and only weights are packed`, async (t) => {
    const model = await nativeModel(t, kind);
    if (!model) return;
    try {
      const plain = await unpacked(() => logprobs(model));
      assert.equal(packedWeightsHeld(), 0, 'nothing is packed with packing off');
      const before = { ...packedWeightStats };
      const packed = await logprobs(model);
      const made = packedWeightStats.sessions - before.sessions;
      assert.ok(made > 0 && packedWeightStats.runs > before.runs, `weights were packed and run (${made} sessions)`);
      // Only the model's weights, each matrix once (by each graph that takes it).
      const matrices = [...model.params.tensors.values()].filter((w) => w.rank === 2).length;
      assert.ok(packedWeightsHeld() > 0 && packedWeightsHeld() <= matrices, `${packedWeightsHeld()} packed tensors, ${matrices} weight matrices`);
      const again = await logprobs(model);
      assert.equal(packedWeightStats.sessions - before.sessions, made, 'a second call packs nothing again');
      // A call's results do not depend on what ran before it (a resumed evaluation gives the same bits).
      assert.deepEqual(again, packed);
      for (const got of [packed, again]) {
        got.forEach((v, i) => assert.ok(Math.abs(v - plain[i]) < 1e-5, `token ${i}: ${v} packed vs ${plain[i]}`));
      }
    } finally {
      model.dispose();
    }
    assert.equal(packedWeightsHeld(), 0, 'disposing the model frees its packed weights');
  });
}

test('a weight written in place is packed again from its new values; a training step frees every packed weight', async (t) => {
  const model = await nativeModel(t, 'llama');
  if (!model) return;
  try {
    await logprobs(model);
    assert.ok(packedWeightsHeld() > 0);
    // As AdamW does: new values written over the weights' memory, then the backend told.
    const backend = tf.backend() as unknown as WasmBackend;
    for (const w of model.params.tensors.values()) {
      if (w.rank !== 2) continue;
      const values = backend.typedArrayFromHeap(w) as Float32Array;
      for (let i = 0; i < values.length; i++) values[i] *= i % 3 === 0 ? -1.5 : 0.5;
      forgetDerivedData(backend, w.dataId);
    }
    const packed = await logprobs(model);
    const plain = await unpacked(() => logprobs(model));
    packed.forEach((v, i) => assert.ok(Math.abs(v - plain[i]) < 1e-5, `token ${i}: ${v} packed vs ${plain[i]} (stale packed copy?)`));
    await logprobs(model);
    assert.ok(packedWeightsHeld() > 0);
    await onTrainingPool(async () => undefined);
    assert.equal(packedWeightsHeld(), 0, 'a training step begins with no packed weight');
  } finally {
    model.dispose();
  }
});
