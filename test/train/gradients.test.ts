// Gradients through the engine's forward on the chosen backend (wasm here: the registered
// UnsortedSegmentSum kernel and the transpose-free BatchMatMul gradient) against central finite
// differences of the same loss, along a random direction in parameter space.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { enableTrainingGradients } from '../../src/engine/builtin/autograd/enable.ts';
import { BuiltinModel } from '../../src/engine/builtin/model.ts';
import { Params } from '../../src/engine/builtin/params.ts';
import { LoraAdapters } from '../../src/engine/builtin/lora.ts';
import { INIT_FAMILIES } from '../../src/engine/index.ts';
import { microBatchLoss } from '../../src/train/loss.ts';
import type { TrainSequence } from '../../src/train/index.ts';
import { seededRandom } from '../../src/seeded-random.ts';
import { loaded, repoRoot, tinyModelDir } from './helpers.ts';

const seqs: TrainSequence[] = [
  { exampleId: 'a', ids: [1, 5, 9, 12, 7, 30], lossPositions: [2, 3, 4, 5], targets: [12, 7, 30, 2] },
  { exampleId: 'b', ids: [1, 8, 5, 40], lossPositions: [3], targets: [20] },
];

/** Directional derivative by finite differences vs the gradient's dot product with the direction. */
async function check(model: BuiltinModel, vars: Map<string, tf.Variable>, eps = 1e-3): Promise<void> {
  enableTrainingGradients();
  const names = [...vars.keys()];
  const rng = seededRandom(3, 'direction');
  const dirs = new Map(names.map((n) => {
    const v = vars.get(n)!;
    const d = Float32Array.from({ length: v.size }, () => rng.next() * 2 - 1);
    return [n, tf.tensor(d, v.shape)];
  }));
  const { value, grads } = tf.variableGrads(() => microBatchLoss(model, seqs, 5), names.map((n) => vars.get(n)!));
  const byVar = new Map(names.map((n) => [vars.get(n)!.name, n]));
  let analytic = 0;
  for (const [vn, g] of Object.entries(grads)) analytic += (await tf.sum(tf.mul(g, dirs.get(byVar.get(vn)!)!)).data())[0];
  assert.equal(Object.keys(grads).length, names.length, 'every parameter gets a gradient');
  const originals = new Map(names.map((n) => [n, tf.clone(vars.get(n)!)]));
  const lossAt = async (sign: number) => {
    for (const n of names) vars.get(n)!.assign(tf.add(originals.get(n)!, tf.mul(dirs.get(n)!, sign * eps)));
    const l = tf.tidy(() => microBatchLoss(model, seqs, 5));
    const x = (await l.data())[0];
    l.dispose();
    return x;
  };
  const numeric = ((await lossAt(1)) - (await lossAt(-1))) / (2 * eps);
  for (const n of names) vars.get(n)!.assign(originals.get(n)!);
  assert.ok(Number.isFinite(value.dataSync()[0]));
  assert.ok(Math.abs(numeric - analytic) <= 5e-3 * Math.abs(numeric) + 1e-3, `finite differences ${numeric} vs gradient ${analytic}`);
}

for (const kind of INIT_FAMILIES) {
  test(`${kind}: full-model gradients match finite differences`, async () => {
    const base = await loaded(await tinyModelDir(kind, { hidden: 16, layers: 2 }));
    // Larger weights than the 0.02 initialisation, so attention and norms are far from linear.
    const vars = new Map<string, tf.Variable>();
    for (const [n, t] of base.params.tensors) vars.set(n, tf.variable(n.endsWith('.bias') || t.rank === 1 ? t : tf.mul(t, 10), true));
    const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(vars as Map<string, tf.Tensor>, false),
      base.tokenizer, base.config);
    await check(model, vars);
  });
}

for (const fixture of ['opt', 'opt-postnorm', 'olmo2', 'qwen2']) {
  test(`${fixture} (engine fixture): full-model gradients match finite differences`, async () => {
    const base = await loaded(path.join(repoRoot, 'test/engine/fixtures', fixture));
    const vars = new Map<string, tf.Variable>();
    for (const [n, t] of base.params.tensors) vars.set(n, tf.variable(t, true));
    const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(vars as Map<string, tf.Tensor>, false),
      base.tokenizer, base.config);
    // OPT's ReLU has kinks that a wider finite-difference step crosses.
    await check(model, vars, fixture.startsWith('opt') ? 1e-4 : 1e-3);
  });
}

test('llama: LoRA adapter gradients match finite differences', async () => {
  const base = await loaded(await tinyModelDir('llama', { hidden: 16, layers: 1 }));
  const adapters = LoraAdapters.create(base, { r: 2, alpha: 4, dropout: 0, targetModules: ['q_proj', 'v_proj', 'down_proj'] }, 1);
  for (const p of adapters.pairs) p.b.assign(tf.randomNormal(p.b.shape, 0, 0.5, 'float32', 2));
  adapters.attach();
  await check(base, adapters.namedVariables());
  adapters.dispose();
});

test('matMul gradients with transpose flags equal those of explicit transposes', async () => {
  enableTrainingGradients();
  const a = tf.randomNormal([2, 3, 4], 0, 1, 'float32', 1);
  const b = tf.randomNormal([2, 4, 5], 0, 1, 'float32', 2);
  const w = tf.randomNormal([2, 3, 5], 0, 1, 'float32', 3);
  const tr = (x: tf.Tensor) => tf.transpose(x, [0, 2, 1]);
  const ref = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(tf.matMul(x, y), w)))([a, b]);
  for (const [ta, tb] of [[true, false], [false, true], [true, true]]) {
    const g = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(tf.matMul(x, y, ta, tb), w)))([ta ? tr(a) : a, tb ? tr(b) : b]);
    const ga = ta ? tr(g[0]) : g[0];
    const gb = tb ? tr(g[1]) : g[1];
    assert.ok(tf.max(tf.abs(tf.sub(ga, ref[0]))).dataSync()[0] < 1e-5, `dA with transposeA=${ta} transposeB=${tb}`);
    assert.ok(tf.max(tf.abs(tf.sub(gb, ref[1]))).dataSync()[0] < 1e-5, `dB with transposeA=${ta} transposeB=${tb}`);
  }
});

test('tape nodes whose gradients read only shapes release their saved inputs when recorded; gradients unchanged', async () => {
  await loaded(await tinyModelDir('gpt2', { hidden: 16, layers: 1 }));
  enableTrainingGradients();
  const x = tf.variable(tf.tensor2d([[1, 2, 3], [4, 5, 6]]));
  const b = tf.tensor1d([0.5, -1, 2]);
  const savedState: Record<string, boolean[]> = {};
  const { grads } = tf.variableGrads(() => {
    // Add (broadcast), Reshape, Sum and Mean save their inputs only for the shapes; Multiply needs values.
    const y = tf.reshape(tf.add(tf.mul(x, x), b), [3, 2]);
    const out = tf.add(tf.sum(tf.mul(y, y)), tf.mean(y)) as tf.Scalar;
    const tape = (tf.engine() as unknown as { state: { activeTape: { kernelName: string; saved?: tf.Tensor[] }[] } }).state.activeTape;
    for (const node of tape) (savedState[node.kernelName] ??= []).push(...(node.saved ?? []).map((t) => t.isDisposed));
    return out;
  }, [x]);
  for (const k of ['Add', 'Reshape', 'Sum', 'Mean']) {
    assert.ok(savedState[k]?.length, `no ${k} node with saved tensors on the tape`);
    assert.ok(savedState[k].every((d) => d), `${k} kept its saved inputs`);
  }
  assert.ok(savedState.Multiply.every((d) => !d), 'Multiply lost the inputs its gradient needs');
  const g = Array.from(await grads[x.name].data());
  // d/dx [sum((x^2 + b)^2) + mean(x^2 + b)] = 4x(x^2 + b) + 2x/6.
  const xs = [1, 2, 3, 4, 5, 6], bs = [0.5, -1, 2, 0.5, -1, 2];
  xs.forEach((v, i) => assert.ok(Math.abs(g[i] - (4 * v * (v * v + bs[i]) + (2 * v) / 6)) < 1e-3, `gradient ${i}: ${g[i]}`));
  for (const t of [x, b, ...Object.values(grads)]) t.dispose();
});
