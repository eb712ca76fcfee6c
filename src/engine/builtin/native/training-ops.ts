// Native ops for training on the native path (see op-graphs.ts for their graphs): LayerNorm, RMSNorm
// and GELU as custom-gradient ops whose backward passes are native too, cross-entropy's forward and
// backward, and AdamW's update. They run only while the native path is on (fusedOpsAvailable()); elsewhere the
// callers use the tfjs compositions, which these match (test/engine/native.test.ts).
import * as tf from '@tensorflow/tfjs-core';
import { nativeGelu, runNative, type WasmBackend } from './fused-ops.ts';

/**
 * LayerNorm (weight and bias) with its gradients computed natively too, for training on the native
 * path: the tape keeps x and two numbers per row, where the tfjs composition keeps about five
 * tensors of x's size.
 */
export function nativeLayerNormTrainable(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  const width = x.shape[x.rank - 1];
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, weight, bias, save] = args as [tf.Tensor, tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const x2 = tf.reshape(input, [-1, width]);
    const [y, mean, inv] = runNative('GenstudyLayerNormTrain', { x: x2, w: weight, b: bias }, { eps }) as tf.Tensor[];
    save([x2, weight, mean, inv]);
    return {
      value: tf.reshape(y, input.shape),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sx, sw, sm, si] = saved;
        const [dx, dw, db] = runNative('GenstudyLayerNormGrad', { x: sx, w: sw, mean: sm, inv: si, dy: tf.reshape(dy, [-1, width]) }) as tf.Tensor[];
        return [tf.reshape(dx, dy.shape), dw, db];
      },
    };
  });
  return fn(x, w, b) as tf.Tensor;
}

/** RMSNorm with its gradients computed natively too (the tape keeps x and one number per row). */
export function nativeRmsNormTrainable(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  const width = x.shape[x.rank - 1];
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, weight, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const x2 = tf.reshape(input, [-1, width]);
    const [y, inv] = runNative('GenstudyRmsNormTrain', { x: x2, w: weight }, { eps }) as tf.Tensor[];
    save([x2, weight, inv]);
    return {
      value: tf.reshape(y, input.shape),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sx, sw, si] = saved;
        const [dx, dw] = runNative('GenstudyRmsNormGrad', { x: sx, w: sw, inv: si, dy: tf.reshape(dy, [-1, width]) }) as tf.Tensor[];
        return [tf.reshape(dx, dy.shape), dw];
      },
    };
  });
  return fn(x, w) as tf.Tensor;
}

/**
 * GELU with its gradient computed natively too (for training on the native path): one custom-gradient
 * op whose tape entry keeps x alone.
 */
export function nativeGeluTrainable(x: tf.Tensor, exact: boolean): tf.Tensor {
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor, tf.GradSaveFunc];
    save([input]);
    return {
      value: nativeGelu(input, exact),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => runNative('GenstudyGeluGrad', { x: saved[0], dy }, { kind: exact ? 1 : 0 }) as tf.Tensor,
    };
  });
  return fn(x) as tf.Tensor;
}

/** One AdamW update: [p, m, v] after it; k as GenstudyAdamW describes. */
export function nativeAdamW(p: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, k: number[]): tf.Tensor[] {
  return runNative('GenstudyAdamW', { p, g, m, v, k: tf.tensor1d(k) }) as tf.Tensor[];
}

/** Each row's log-softmax of x [N, V] and its value at the row's target (targets [N], int32). */
export function nativeLogSoftmaxAt(x: tf.Tensor2D, targets: tf.Tensor1D): { logp: tf.Tensor2D; gold: tf.Tensor1D } {
  const [logp, gold] = runNative('GenstudyLogSoftmaxAt', { x, targets: tf.reshape(targets, [-1, 1]) }) as tf.Tensor[];
  return { logp: logp as tf.Tensor2D, gold: tf.reshape(gold, [-1]) as tf.Tensor1D };
}

/** dy (exp(logp) - onehot(targets)) for logp [N, V], the rows' targets and a scalar dy. */
export function nativeCrossEntropyGrad(logp: tf.Tensor2D, targets: readonly number[], dy: tf.Tensor): tf.Tensor2D {
  const g = runNative('GenstudyScaledExp', { logp, dy: tf.reshape(dy, [1]) }) as tf.Tensor2D;
  const d = dy.dataSync()[0];
  const vocab = logp.shape[1];
  // g is a new output that nothing else has read: the one-hot term (one element per row) is
  // subtracted where it lies on the heap.
  const heap = (tf.backend() as unknown as WasmBackend).typedArrayFromHeap(g) as Float32Array;
  targets.forEach((t, i) => { heap[i * vocab + t] -= d; });
  return g;
}
