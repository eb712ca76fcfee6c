// The native path (src/engine/builtin/native: onnxruntime-node's matrix multiply inside tfjs wasm)
// against the wasm path in the same process: the products, then every fixture family's logits and the
// shared golden models' scores, each also checked against its PyTorch / transformers oracle on both
// paths. Skipped, with the reason, where onnxruntime-node does not load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { INIT_FAMILIES, initBackend, loadModel } from '../../src/engine/index.ts';
import { enginePath } from '../../src/engine/builtin/backend.ts';
import { nativeMatMulActive, nativeMatMulStats, setNativeMatMul } from '../../src/engine/builtin/native/matmul-kernel.ts';
import { nativeLoadError } from '../../src/engine/builtin/native/ort.ts';
import { scoreTokens } from '../../src/engine/builtin/scoring.ts';
import { applyRotary, attention, gated, geluErf, geluTanh, layerNorm, linear, residualLinear, rmsNorm, silu,
  splitHeads } from '../../src/engine/builtin/blocks.ts';
import { nativeRopeAttentionTrainable, nativeSwiGluTrainable } from '../../src/engine/builtin/native/training-ops.ts';
import {
  nativeCausalAttention, nativeFusedStats, nativeGroupQueryAttention, nativeLogprobsAt, nativeRopeAttention,
} from '../../src/engine/builtin/native/fused-ops.ts';
import { rotaryCache, rotaryTables } from '../../src/engine/builtin/rotary.ts';
import { fixturesDir, GOLDEN_FAMILIES, goldenDir, maxAbsDiff, NO_SHARED, readJsonl } from './helpers.ts';
import { enableTrainingGradients } from '../../src/engine/builtin/autograd/enable.ts';
import { BuiltinModel } from '../../src/engine/builtin/model.ts';
import { Params } from '../../src/engine/builtin/params.ts';
import { microBatchLoss } from '../../src/train/loss.ts';
import { type TrainSequence } from '../../src/train/index.ts';
import { loaded, tinyModelDir } from '../train/helpers.ts';

const FAMILIES = ['opt', 'opt-postnorm', 'olmo2', 'qwen2', 'llama-variants'];

/** Runs fn on the wasm path (native products off), then restores the native path. */
async function onWasm<T>(fn: () => Promise<T>): Promise<T> {
  setNativeMatMul(false);
  try {
    return await fn();
  } finally {
    setNativeMatMul(true);
  }
}

/** Runs fn on the native path and checks that products really ran there. */
async function onNative<T>(fn: () => Promise<T>): Promise<T> {
  const before = nativeMatMulStats.native;
  const out = await fn();
  assert.ok(nativeMatMulStats.native > before, 'no product ran in onnxruntime');
  return out;
}

async function nativeOrSkip(t: { skip(msg: string): void; diagnostic(msg: string): void }): Promise<boolean> {
  await initBackend();
  t.diagnostic(`engine path: ${enginePath()}`);
  if (nativeMatMulActive()) return true;
  t.skip(`the native path is not in use here (${nativeLoadError() || `backend ${tf.getBackend()}`})`);
  return false;
}

test('native products equal the wasm kernel on transposes, batches and broadcast batches', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  const cases: [number[], number[], boolean, boolean][] = [
    [[64, 128], [128, 96], false, false], [[3, 64, 128], [3, 96, 128], false, true], [[2, 128, 64], [2, 128, 96], true, false],
    [[128, 64], [96, 128], true, true], [[4, 64, 64], [64, 80], false, false], [[64, 64], [5, 64, 80], false, false],
    [[2, 3, 40, 50], [2, 3, 50, 60], false, false],
    // A transposed first operand large enough to be transposed before the product (matmul-kernel.ts),
    // and results tall enough to be computed transposed (in one block of rows, and in three).
    [[2, 256, 128], [2, 256, 96], true, false], [[300, 2000], [300, 40], true, false], [[64, 9000], [64, 16], true, false],
  ];
  cases.forEach(([sa, sb, ta, tb], i) => {
    tf.tidy(() => {
      const a = tf.randomNormal(sa, 0, 1, 'float32', 2 * i + 1);
      const b = tf.randomNormal(sb, 0, 1, 'float32', 2 * i + 2);
      const before = nativeMatMulStats.native;
      const native = tf.matMul(a, b, ta, tb);
      assert.equal(nativeMatMulStats.native, before + 1, `case ${i} did not run natively`);
      setNativeMatMul(false);
      const wasm = tf.matMul(a, b, ta, tb);
      setNativeMatMul(true);
      assert.deepEqual(native.shape, wasm.shape);
      const d = maxAbsDiff(native.dataSync(), wasm.dataSync());
      assert.ok(d < 2e-4, `case ${i}: ${sa} x ${sb} (${ta}, ${tb}) differ by ${d}`);
    });
  });
});

/** fn on the native path (checking that a fused native kernel ran), then on the wasm path. */
function nativeAndWasm<T>(what: string, fn: () => T): { native: T; wasm: T } {
  const before = nativeFusedStats.calls;
  const native = fn();
  assert.ok(nativeFusedStats.calls > before, `${what}: no native kernel ran`);
  setNativeMatMul(false);
  try {
    return { native, wasm: fn() };
  } finally {
    setNativeMatMul(true);
  }
}

test('fused native operations (LayerNorm, RMSNorm, linear + bias, GELU, attention, log-softmax at targets) equal the tfjs ' +
  'compositions', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  tf.tidy(() => {
    const r = (shape: number[], seed: number, scale = 1) => tf.mul(tf.randomNormal(shape, 0, 1, 'float32', seed), scale) as tf.Tensor4D;
    const x = r([2, 5, 48], 1, 3);
    const q = r([2, 4, 5, 12], 2), k = r([2, 4, 7, 12], 3), v = r([2, 4, 7, 12], 4);
    const keep = tf.tensor4d(Array.from({ length: 2 * 5 * 7 }, (_, i) => (i % 7 <= 2 + (i % 5) ? 0 : -1e9)), [2, 1, 5, 7]);
    const logits = r([6, 50], 5, 4) as tf.Tensor as tf.Tensor2D;
    const targets = tf.tensor1d([0, 49, 7, 7, 13, 2], 'int32');
    const cases: [string, () => tf.Tensor][] = [
      ['layerNorm', () => layerNorm(x, r([48], 6), r([48], 7), 1e-5)],
      ['rmsNorm', () => rmsNorm(x, r([48], 12), 1e-6)],
      ['linear', () => linear(x, r([48, 20], 8), r([20], 9))],
      ['geluTanh', () => geluTanh(x)],
      ['geluErf', () => geluErf(x)],
      ['attention', () => attention(q, k, v, keep, 0.3).out],
      ['grouped-query attention', () => attention(q, r([2, 2, 7, 12], 10), r([2, 2, 7, 12], 11), keep, 0.3).out],
    ];
    for (const [name, f] of cases) {
      const { native, wasm } = nativeAndWasm(name, f);
      assert.deepEqual(native.shape, wasm.shape, name);
      assert.ok(maxAbsDiff(native.dataSync(), wasm.dataSync()) < 1e-4, `${name}: ${maxAbsDiff(native.dataSync(), wasm.dataSync())}`);
    }
    const got = nativeLogprobsAt(logits, targets);
    const logp = tf.logSoftmax(logits).arraySync() as number[][];
    const ts = targets.arraySync();
    assert.ok(maxAbsDiff(got.logprobs.dataSync(), ts.map((tok, i) => logp[i][tok])) < 1e-4);
    assert.deepEqual(Array.from(got.argmax.dataSync()), Array.from(tf.argMax(logits, 1).dataSync()));
    // The argmax goes by blocks of columns where the vocabulary has a divisor up to 128: ties go to the
    // first index, across blocks and inside one, as ArgMax's (and a vocabulary without one: plain ArgMax).
    for (const vocab of [384, 300, 389]) {
      const rows = [[5, 200], [130, 140], [vocab - 1], [...Array(vocab).keys()]];
      const values = rows.flatMap((top, i) => Array.from({ length: vocab }, (_, j) => (top.includes(j) ? 7 : Math.sin(i * vocab + j))));
      const tied = nativeLogprobsAt(tf.tensor2d(values, [rows.length, vocab]), tf.tensor1d([0, 1, 2, 3], 'int32'));
      assert.deepEqual(Array.from(tied.argmax.dataSync()), rows.map((top) => Math.min(...top)), `argmax with ties, vocabulary ${vocab}`);
    }
  });
});

test('the Llama path\'s native fusions (rotary grouped-query attention from projections, SwiGLU, residual products) equal the tfjs ' +
  'compositions', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  tf.tidy(() => {
    const r = (shape: number[], seed: number, scale = 1) => tf.mul(tf.randomNormal(shape, 0, 1, 'float32', seed), scale);
    const [b, tt, heads, kvHeads, d] = [2, 6, 6, 2, 16];
    const q = r([b, tt, heads * d], 31), k = r([b, tt, kvHeads * d], 32), v = r([b, tt, kvHeads * d], 33);
    // Right padding in the second row (batching.ts's mask: 0 where a query may attend, -1e9 elsewhere).
    const mask = tf.tensor4d(Array.from({ length: b * tt * tt }, (_, i) => {
      const row = Math.floor(i / (tt * tt)), qi = Math.floor(i / tt) % tt, ki = i % tt;
      return ki <= qi && !(row === 1 && ki >= 4) ? 0 : -1e9;
    }), [b, 1, tt, tt]);
    const { cos, sin } = rotaryTables({ dim: d, theta: 10000 }, [[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]]);
    const before = nativeFusedStats.calls;
    const fused = nativeRopeAttention(q, k, v, cos, sin, mask, heads, kvHeads, d, 0.35);
    assert.ok(nativeFusedStats.calls > before, 'the fused attention did not run natively');
    const { wasm } = nativeAndWasm('rope attention', () => attention(applyRotary(splitHeads(q, heads, d), cos, sin),
      applyRotary(splitHeads(k, kvHeads, d), cos, sin), splitHeads(v, kvHeads, d), mask, 0.35).out);
    const kc = applyRotary(splitHeads(k, kvHeads, d), cos, sin);
    assert.deepEqual(fused.out.shape, wasm.shape);
    for (const [name, got, want] of [['attention', fused.out, wasm], ['rotated keys', fused.k, kc],
      ['values', fused.v, splitHeads(v, kvHeads, d)]] as const) {
      const diff = maxAbsDiff(got.dataSync(), want.dataSync());
      assert.ok(diff < 1e-5, `${name}: ${diff}`);
    }
    // onnxruntime's GroupQueryAttention by row lengths (6 and 4): equal on every real position.
    const half = rotaryCache({ dim: d, theta: 10000 }, tt);
    const byLength = nativeGroupQueryAttention(q, k, v, [6, 4], half.cos, half.sin, heads, kvHeads, d, 0.35);
    const real = (x: tf.Tensor, rows: number) => Array.from(x.dataSync()).filter((_, i) => {
      const row = Math.floor(i / (x.size / b)), pos = Math.floor(i / rows) % tt;
      return row === 0 || pos < 4;
    });
    const gqaDiff = maxAbsDiff(real(byLength.out, heads * d), real(wasm, heads * d));
    assert.ok(gqaDiff < 1e-5, `GroupQueryAttention: ${gqaDiff}`);
    assert.ok(maxAbsDiff(real(tf.transpose(byLength.k, [0, 2, 1, 3]), kvHeads * d), real(tf.transpose(kc, [0, 2, 1, 3]), kvHeads * d)) < 1e-5,
      'GroupQueryAttention keys');
    const x = r([2, 5, 48], 34), h = r([2, 5, 20], 35), w = r([48, 20], 36, 0.2), bias = r([20], 37);
    const gate = r([3, 70000], 38, 3), up = r([3, 70000], 39);
    const cases: [string, () => tf.Tensor][] = [
      ['SwiGLU (several slices)', () => gated(silu, gate, up)],
      ['residual product', () => residualLinear(h, x, w, undefined)],
      ['residual product with bias', () => residualLinear(h, x, w, bias)],
    ];
    for (const [name, f] of cases) {
      const { native, wasm } = nativeAndWasm(name, f);
      assert.deepEqual(native.shape, wasm.shape, name);
      assert.ok(maxAbsDiff(native.dataSync(), wasm.dataSync()) < 1e-5, `${name}: ${maxAbsDiff(native.dataSync(), wasm.dataSync())}`);
    }
  });
});

/** Causal mask of right-padded rows (batching.ts's: 0 where a query may attend, -1e9 elsewhere). */
function paddedCausalMask(lengths: number[], tt: number): tf.Tensor4D {
  return tf.tensor4d(Array.from({ length: lengths.length * tt * tt }, (_, i) => {
    const row = Math.floor(i / (tt * tt)), qi = Math.floor(i / tt) % tt, ki = i % tt;
    return ki <= qi && ki < lengths[row] ? 0 : -1e9;
  }), [lengths.length, 1, tt, tt]);
}

/** The values at each row's real positions of x [B, T, ...]. */
function realPositions(x: tf.Tensor, lengths: number[]): number[] {
  const [b, tt] = x.shape;
  const per = x.size / (b * tt);
  return Array.from(x.dataSync()).filter((_, i) => Math.floor(i / per) % tt < lengths[Math.floor(i / (x.size / b))]);
}

test('scoring attention by row lengths: long rows in blocks of queries (Llama) and the causal kernel (GPT-2) equal the compositions', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  tf.tidy(() => {
    const r = (shape: number[], seed: number) => tf.randomNormal(shape, 0, 1, 'float32', seed);
    // Over two blocks of 64 queries, right-padded: the blocked path, one row shorter than a block boundary.
    const [tt, heads, kvHeads, d] = [200, 6, 2, 16];
    const lengths = [200, 137, 60];
    const b = lengths.length;
    const q = r([b, tt, heads * d], 41), k = r([b, tt, kvHeads * d], 42), v = r([b, tt, kvHeads * d], 43);
    const mask = paddedCausalMask(lengths, tt);
    const rope = { dim: d, theta: 10000 };
    const { cos, sin } = rotaryTables(rope, lengths.map(() => Array.from({ length: tt }, (_, p) => p)));
    const rotated = (x: tf.Tensor, n: number) => applyRotary(splitHeads(x, n, d), cos, sin);
    const { wasm } = nativeAndWasm('rope attention',
      () => attention(rotated(q, heads), rotated(k, kvHeads), splitHeads(v, kvHeads, d), mask, 0.3).out);
    const half = rotaryCache(rope, tt);
    const before = nativeFusedStats.calls;
    const blocked = nativeGroupQueryAttention(q, k, v, lengths, half.cos, half.sin, heads, kvHeads, d, 0.3);
    assert.ok(nativeFusedStats.calls - before >= b * Math.ceil(tt / 64), 'the rows did not run in blocks of queries');
    const diff = maxAbsDiff(realPositions(blocked.out, lengths), realPositions(wasm, lengths));
    assert.ok(diff < 1e-5, `blocked GroupQueryAttention: ${diff}`);
    const keys = applyRotary(splitHeads(k, kvHeads, d), cos, sin);
    assert.deepEqual(blocked.k.shape, keys.shape);
    const byToken = (x: tf.Tensor) => realPositions(tf.transpose(x, [0, 2, 1, 3]), lengths);
    const keyDiff = maxAbsDiff(byToken(blocked.k), byToken(keys));
    assert.ok(keyDiff < 1e-5, `blocked GroupQueryAttention's rotated keys: ${keyDiff}`);
    // GPT-2's learned positions: no rotary, as many key-value heads as query heads.
    for (const [t2, lengths2] of [[40, [40, 25]], [180, [180, 129, 30]]] as const) {
      const shape = [lengths2.length, t2, heads * d];
      const q2 = r(shape, 44), k2 = r(shape, 45), v2 = r(shape, 46);
      const causal = nativeCausalAttention(q2, k2, v2, [...lengths2], heads, d, 0.25);
      const heads2 = (x: tf.Tensor) => splitHeads(x, heads, d);
      const mask2 = paddedCausalMask([...lengths2], t2);
      const plain = nativeAndWasm('attention', () => attention(heads2(q2), heads2(k2), heads2(v2), mask2, 0.25).out).wasm;
      const causalDiff = maxAbsDiff(realPositions(causal.out, [...lengths2]), realPositions(plain, [...lengths2]));
      assert.ok(causalDiff < 1e-5, `causal attention over ${t2} positions: ${causalDiff}`);
    }
  });
});

test('the Llama path\'s training ops (rotary grouped-query attention, SwiGLU) have the tfjs compositions\' gradients, bit-identical wherever the ' +
  'inputs lie on the heap', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  enableTrainingGradients();
  const [b, tt, heads, kvHeads, d] = [2, 5, 6, 2, 8];
  const r = (shape: number[], seed: number) => tf.randomNormal(shape, 0, 1, 'float32', seed);
  const q = r([b, tt, heads * d], 41), k = r([b, tt, kvHeads * d], 42), v = r([b, tt, kvHeads * d], 43), w = r([b, tt, heads * d], 44);
  const mask = tf.tensor4d(Array.from({ length: b * tt * tt }, (_, i) => {
    const row = Math.floor(i / (tt * tt)), qi = Math.floor(i / tt) % tt, ki = i % tt;
    return ki <= qi && !(row === 1 && ki >= 3) ? 0 : -1e9;
  }), [b, 1, tt, tt]);
  const { cos, sin } = rotaryTables({ dim: d, theta: 10000 }, [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]);
  const composed = (qi: tf.Tensor, ki: tf.Tensor, vi: tf.Tensor) =>
    attention(applyRotary(splitHeads(qi, heads, d), cos, sin), applyRotary(splitHeads(ki, kvHeads, d), cos, sin),
      splitHeads(vi, kvHeads, d), mask, 0.3).out;
  const loss = (f: (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => tf.Tensor) => (qi: tf.Tensor, ki: tf.Tensor, vi: tf.Tensor) =>
    tf.sum(tf.mul(f(qi, ki, vi), w)) as tf.Scalar;
  const nativeGrads = () =>
    tf.grads(loss((qi, ki, vi) => nativeRopeAttentionTrainable(qi, ki, vi, cos, sin, mask, heads, kvHeads, d, 0.3).out))([q, k, v]);
  const before = nativeFusedStats.calls;
  const native = nativeGrads();
  assert.ok(nativeFusedStats.calls >= before + 2, 'the native forward and backward did not run');
  setNativeMatMul(false);
  let wasm: tf.Tensor[];
  try {
    wasm = tf.grads(loss(composed))([q, k, v]);
  } finally {
    setNativeMatMul(true);
  }
  ['dq', 'dk', 'dv'].forEach((name, i) => {
    const diff = maxAbsDiff(native[i].dataSync(), wasm[i].dataSync());
    assert.ok(diff < 1e-5, `${name}: ${diff}`);
  });
  const gate = tf.mul(r([3, 70000], 45), 3), up = r([3, 70000], 46), dyw = r([3, 70000], 47);
  const swiLoss = (f: (g: tf.Tensor, u: tf.Tensor) => tf.Tensor) => (g: tf.Tensor, u: tf.Tensor) => tf.sum(tf.mul(f(g, u), dyw)) as tf.Scalar;
  const swiNative = tf.grads(swiLoss(nativeSwiGluTrainable))([gate, up]);
  const swiWasm = tf.grads(swiLoss((g, u) => tf.mul(silu(g), u)))([gate, up]);
  ['dgate', 'dup'].forEach((name, i) => {
    const diff = maxAbsDiff(swiNative[i].dataSync(), swiWasm[i].dataSync());
    assert.ok(diff < 1e-4, `SwiGLU ${name}: ${diff}`);
  });
  // A resumed run must end identical: the same inputs copied elsewhere on the heap give the same bits.
  const pad = tf.zeros([1237]);
  const moved = [q, k, v].map((x) => tf.add(x, 0));
  const again = tf.grads(loss((qi, ki, vi) => nativeRopeAttentionTrainable(qi, ki, vi, cos, sin, mask, heads, kvHeads, d, 0.3).out))(moved);
  native.forEach((g, i) =>
    assert.deepEqual(Array.from(again[i].dataSync()), Array.from(g.dataSync()), `gradient ${i} depends on where the inputs lie`));
  tf.dispose([q, k, v, w, mask, cos, sin, ...native, ...wasm!, gate, up, dyw, ...swiNative, ...swiWasm, pad, ...moved, ...again]);
});

test('GELU\'s native gradients (tanh and erf forms) equal the tfjs compositions\' on wide inputs', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  enableTrainingGradients();
  tf.tidy(() => {
    // Large enough to run in several slices (OpDef.elementwise), wide enough to reach both tails.
    const x = tf.mul(tf.randomNormal([3, 40000], 0, 1, 'float32', 21), 4);
    const w = tf.randomNormal([3, 40000], 0, 1, 'float32', 22);
    for (const [name, gelu] of [['geluTanh', geluTanh], ['geluErf', geluErf]] as const) {
      const { native, wasm } = nativeAndWasm(name, () => tf.grad((v: tf.Tensor) => tf.sum(tf.mul(gelu(v), w)))(x));
      const d = maxAbsDiff(native.dataSync(), wasm.dataSync());
      // Gradients reach ~4 here; float32 rounding of two ways of writing the same derivative.
      assert.ok(d < 5e-5, `${name}: gradients differ by ${d}`);
    }
  });
});

test('LayerNorm\'s (x, weight, bias) and RMSNorm\'s (x, weight) native gradients equal the tfjs compositions\'', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  enableTrainingGradients();
  tf.tidy(() => {
    const r = (shape: number[], seed: number, mean = 0, sd = 1) => tf.randomNormal(shape, mean, sd, 'float32', seed);
    const [x, w, b, dy] = [r([4, 30, 96], 31, 0.5, 3), r([96], 32, 1, 0.2), r([96], 33), r([4, 30, 96], 34)];
    const cases = [
      { name: 'LayerNorm', inputs: ['x', 'weight', 'bias'],
        f: (a: tf.Tensor, c: tf.Tensor, d: tf.Tensor) => layerNorm(a, c, d, 1e-5), args: [x, w, b] },
      { name: 'RMSNorm', inputs: ['x', 'weight'], f: (a: tf.Tensor, c: tf.Tensor) => rmsNorm(a, c, 1e-6), args: [x, w] },
    ];
    for (const c of cases) {
      const { native, wasm } = nativeAndWasm(c.name,
        () => tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul((c.f as (...t: tf.Tensor[]) => tf.Tensor)(...a), dy)))(c.args));
      c.inputs.forEach((input, i) => {
        const d = maxAbsDiff(native[i].dataSync(), wasm[i].dataSync());
        assert.ok(d < 1e-4, `${c.name} ${input}: gradients differ by ${d}`);
      });
    }
  });
});

test('a norm whose weights get no gradient (LoRA\'s frozen model) computes dx alone, with the bits of the full gradient\'s dx', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  enableTrainingGradients();
  const r = (shape: number[], seed: number, mean = 0, sd = 1) => tf.randomNormal(shape, mean, sd, 'float32', seed);
  const [x, w, b, dy] = [r([3, 17, 96], 41, 0.5, 3), r([96], 42, 1, 0.2), r([96], 43), r([3, 17, 96], 44)];
  const norms: [string, (a: tf.Tensor, c: tf.Tensor) => tf.Tensor][] = [
    ['GenstudyLayerNormGrad', (a, c) => layerNorm(a, c, b, 1e-5)], ['GenstudyRmsNormGrad', (a, c) => rmsNorm(a, c, 1e-6)],
  ];
  for (const [grad, f] of norms) {
    const loss = (a: tf.Tensor, c: tf.Tensor) => tf.sum(tf.mul(f(a, c), dy));
    // tf.profile hands back one object, overwritten by the next profile: the names are read at once.
    const alone = (await tf.profile(() => tf.grad((a: tf.Tensor) => loss(a, w))(x))).kernelNames;
    const full = (await tf.profile(() => tf.grads((a: tf.Tensor, c: tf.Tensor) => loss(a, c))([x, w])[0])).kernelNames;
    assert.ok(alone.includes(`${grad}Dx`) && !full.includes(`${grad}Dx`), `${grad}: ${alone} / ${full}`);
    const [dxAlone, dxFull] = [tf.grad((a: tf.Tensor) => loss(a, w))(x), tf.grads((a: tf.Tensor, c: tf.Tensor) => loss(a, c))([x, w])];
    assert.ok(dxAlone.dataSync().every((v, i) => Object.is(v, dxFull[0].dataSync()[i])), `${grad}: dx differs`);
    tf.dispose([dxAlone, ...dxFull]);
  }
  tf.dispose([x, w, b, dy]);
});

interface Expected { source: string; sequences: number[][]; logits: number[][][] }

function worstAgainst(got: Float32Array[], expected: Expected, vocab: number): number {
  let worst = 0;
  expected.logits.forEach((seq, i) => seq.forEach((row, t) => row.forEach((x, j) => {
    worst = Math.max(worst, Math.abs(got[i][t * vocab + j] - x));
  })));
  return worst;
}

for (const name of FAMILIES) {
  test(`${name}: native logits equal the wasm path's to 1e-4, and both equal the PyTorch fixture's`, async (t) => {
    if (!(await nativeOrSkip(t))) return;
    const dir = path.join(fixturesDir, name);
    const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
    const model = await loadModel(dir);
    try {
      const native = await onNative(() => model.logits(expected.sequences));
      const wasm = await onWasm(() => model.logits(expected.sequences));
      native.forEach((row, i) => assert.ok(maxAbsDiff(row, wasm[i]) < 1e-4, `sequence ${i}: native vs wasm ${maxAbsDiff(row, wasm[i])}`));
      for (const [label, got] of [['native', native], ['wasm', wasm]] as const) {
        const worst = worstAgainst(got, expected, model.arch.vocabSize);
        assert.ok(worst < 1e-4, `${label}: max |difference| ${worst} against ${expected.source}`);
      }
    } finally {
      model.dispose();
    }
  });
}

for (const family of GOLDEN_FAMILIES) {
  test(`${family} golden model: native logits equal the wasm path's to 1e-4; scores equal the golden values on both paths`, async (t) => {
    if (!(await nativeOrSkip(t))) return;
    const dir = goldenDir(family);
    if (!dir) return t.skip(NO_SHARED);
    const model = await loadModel(dir, { maxBatchTokens: 200 });
    try {
      const pairs = readJsonl<{ context: string; continuation: string }>(path.join(dir, 'pairs.jsonl'));
      const expected = readJsonl<{ id: string; logprob: number }>(path.join(dir, 'expected.jsonl'));
      const rows = pairs.slice(0, 8).map((p) => model.tokenizer.encode(p.context + p.continuation));
      const native = await onNative(() => model.logits(rows));
      const wasm = await onWasm(() => model.logits(rows));
      native.forEach((row, i) => assert.ok(maxAbsDiff(row, wasm[i]) < 1e-4, `sequence ${i}: native vs wasm ${maxAbsDiff(row, wasm[i])}`));
      for (const [label, run] of [['native', onNative], ['wasm', onWasm]] as const) {
        const got = await run(() => scoreTokens(model, pairs));
        expected.forEach((e, i) => assert.ok(Math.abs(got[i].logprob - e.logprob) < 1e-4, `${label}, ${e.id}: ${got[i].logprob} vs ${e.logprob}`));
      }
    } finally {
      model.dispose();
    }
  });
}

test('training gradients (GPT-2 and Llama, full model) on the native path equal the wasm path\'s', async (t) => {
  if (!(await nativeOrSkip(t))) return;
  enableTrainingGradients();
  for (const kind of INIT_FAMILIES) {
    const base = await loaded(await tinyModelDir(kind, { hidden: 64, layers: 2 }));
    const vars = new Map<string, tf.Variable>();
    for (const [n, w] of base.params.tensors) vars.set(n, tf.variable(w, true));
    const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(vars as Map<string, tf.Tensor>, false),
      base.tokenizer, base.config);
    const vocab = model.arch.vocabSize;
    const seqs: TrainSequence[] = [0, 1, 2].map((i) => {
      const ids = Array.from({ length: 40 - 7 * i }, (_, j) => (j * 7 + i * 3 + 1) % vocab);
      return { exampleId: String(i), ids, lossPositions: ids.map((_, j) => j), targets: ids.map((x) => (x * 5 + 2) % vocab) };
    });
    const grads = () => {
      const { value, grads: g } = tf.variableGrads(() => microBatchLoss(model, seqs, 100), [...vars.values()]);
      const out = new Map(Object.entries(g).map(([k, v]) => [k, v.dataSync().slice()]));
      tf.dispose([value, ...Object.values(g)]);
      return out;
    };
    const native = await onNative(async () => grads());
    const wasm = await onWasm(async () => grads());
    for (const [name, g] of native) {
      const scale = Math.max(1e-6, ...Array.from(wasm.get(name)!, Math.abs));
      assert.ok(maxAbsDiff(g, wasm.get(name)!) <= 1e-4 * scale + 1e-7, `${kind} ${name}: ${maxAbsDiff(g, wasm.get(name)!)} (largest ${scale})`);
    }
    for (const v of vars.values()) v.dispose();
  }
});
