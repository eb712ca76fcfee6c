// matMul's gradient. tfjs's uses matMuls with transposeA / transposeB set, which on wasm run ~15x
// slower than an explicit transpose followed by a plain matMul (docs/design.md, "Gradients";
// src/engine/README.md). BatchMatMul's gradient is re-registered (enable.ts) with explicit
// transposes; the values are the same, only the kernels differ. The native product takes the flags
// inside its kernel at full speed, so there tfjs's own formulas are kept.
import * as tf from '@tensorflow/tfjs-core';
import { nativeMatMulActive } from '../native/matmul-kernel.ts';

/** Swaps the last two axes of a rank >= 2 tensor. */
function swapLast(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const r = x.rank;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

/** op(x) as the forward applied it: x or its transpose. */
function applied(x: tf.Tensor, transposed: boolean): tf.Tensor {
  return transposed ? swapLast(x) : x;
}

/**
 * Gradient of C = op(A) op(B): dOp(A) = dC op(B)^T, dOp(B) = op(A)^T dC, each written as plain
 * matMuls of explicitly transposed operands, then mapped back through op.
 */
export const batchMatMulGrad: tf.GradConfig = {
  kernelName: tf.BatchMatMul,
  inputsToSave: ['a', 'b'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: tf.NamedAttrMap) => {
    const g = dy as tf.Tensor;
    const [a, b] = saved;
    const { transposeA, transposeB } = attrs as unknown as { transposeA: boolean; transposeB: boolean };
    // The native product (native/matmul-kernel.ts) takes the flags inside its kernel at full speed.
    if (nativeMatMulActive()) return flaggedMatMulGrads(g, a, b, transposeA, transposeB);
    return {
      a: () => {
        const dOpA = tf.matMul(g, swapLast(applied(b, transposeB)));
        return transposeA ? swapLast(dOpA) : dOpA;
      },
      b: () => {
        const dOpB = tf.matMul(swapLast(applied(a, transposeA)), g);
        return transposeB ? swapLast(dOpB) : dOpB;
      },
    };
  },
};

/** tfjs's own gradient of C = op(A) op(B), with the transpose flags (for the native product). */
function flaggedMatMulGrads(g: tf.Tensor, a: tf.Tensor, b: tf.Tensor, tA: boolean, tB: boolean): Record<string, () => tf.Tensor> {
  if (!tA && !tB) return { a: () => tf.matMul(g, b, false, true), b: () => tf.matMul(a, g, true, false) };
  if (!tA && tB) return { a: () => tf.matMul(g, b, false, false), b: () => tf.matMul(g, a, true, false) };
  if (tA && !tB) return { a: () => tf.matMul(b, g, false, true), b: () => tf.matMul(a, g, false, false) };
  return { a: () => tf.matMul(b, g, true, true), b: () => tf.matMul(g, a, true, true) };
}
