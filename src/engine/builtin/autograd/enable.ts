// What training needs from tfjs's autograd beyond the forward pass, registered once per process.
// The training autograd lives in this folder:
// - enable.ts: tfjs-core's gradient functions (tfjs-core's own bundle registers none; the union
//   package @tensorflow/tfjs registers them into the same tfjs-core instance when loaded, its
//   CommonJS build: tfjs-core's ESM gradient files use extensionless imports that Node cannot load),
//   then genstudy's replacements below;
// - matmul-grad.ts: matMul's gradient with explicit transposes (wasm);
// - tile-grad.ts: tile's gradient at rank 5 (grouped-query attention);
// - segment-sum-wasm.ts: gather's gradient kernel on wasm;
// - tape-memory.ts: tensors released during the backward walk;
// - gradient-sum.ts: an input's gradients summed in place on wasm;
// - custom-gradient ops, each an op written with its backward: cross-entropy.ts (the loss),
//   sliced-bmm.ts (wasm's sliced batched product, blocks.ts). The native path's trainable ops
//   (LayerNorm, RMSNorm, GELU, SwiGLU, rotary attention) are custom-gradient ops beside their
//   kernels in ../native/training-ops.ts.
import * as tf from '@tensorflow/tfjs-core';
import { createRequire } from 'node:module';
import { batchMatMulGrad } from './matmul-grad.ts';
import { unsortedSegmentSumWasm } from './segment-sum-wasm.ts';
import { releaseGradientsEarly } from './tape-memory.ts';
import { registerGradientSumInPlace } from './gradient-sum.ts';
import { tileGrad } from './tile-grad.ts';

let registered = false;

/**
 * Registers the training kernels and gradients (idempotent). Call after the backend is chosen
 * (initBackend) and before the first tf.variableGrads.
 */
export function enableTrainingGradients(): void {
  if (registered) return;
  registered = true;
  createRequire(import.meta.url)('@tensorflow/tfjs');
  // registerGradient replaces the built-in config; silence its one-time warning about that.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('Overriding the gradient for')) return;
    warn(...args);
  };
  try {
    tf.registerGradient(batchMatMulGrad);
    tf.registerGradient(tileGrad);
  } finally {
    console.warn = warn;
  }
  releaseGradientsEarly();
  if (tf.getBackend() === 'wasm') registerGradientSumInPlace();
  if (!tf.getKernel(tf.UnsortedSegmentSum, 'wasm')) {
    tf.registerKernel({
      kernelName: tf.UnsortedSegmentSum, backendName: 'wasm', kernelFunc: unsortedSegmentSumWasm as unknown as tf.KernelFunc,
    });
  }
}
