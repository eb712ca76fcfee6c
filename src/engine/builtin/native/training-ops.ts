// Native ops for training on the native path (see op-graphs.ts for their graphs): LayerNorm, RMSNorm
// and GELU as custom-gradient ops whose backward passes are native too, cross-entropy's forward and
// backward, and AdamW's update. They run only while the native path is on (fusedOpsAvailable());
// elsewhere the callers use the tfjs compositions, which these match (test/engine/native.test.ts).
import * as tf from '@tensorflow/tfjs-core';
import { nativeGelu, runNative, type WasmBackend } from './fused-ops.ts';
import { OPS } from './op-graphs.ts';

/**
 * A norm over the last axis whose forward op (`train`) returns y and per-row statistics and whose
 * backward op (`grad`) takes x, the weight, those statistics and dy (in that input order, see
 * op-graphs.ts) and returns dx and the parameters' gradients. The tape keeps x and the statistics
 * (a number or two per row), where the tfjs composition keeps about five tensors of x's size.
 */
function rowNormTrainable(train: string, grad: string, x: tf.Tensor, params: tf.Tensor[], eps: number): tf.Tensor {
  const width = x.shape[x.rank - 1];
  const named = (op: string, values: tf.Tensor[]) => Object.fromEntries(OPS[op].inputs.map((n, i) => [n, values[i]]));
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args.pop() as tf.GradSaveFunc;
    const [input, ...ps] = args as tf.Tensor[];
    const x2 = tf.reshape(input, [-1, width]);
    const [y, ...stats] = runNative(train, named(train, [x2, ...ps]), { eps }) as tf.Tensor[];
    save([x2, ps[0], ...stats]);
    return {
      value: tf.reshape(y, input.shape),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [dx, ...dps] = runNative(grad, named(grad, [...saved, tf.reshape(dy, [-1, width])])) as tf.Tensor[];
        return [tf.reshape(dx, dy.shape), ...dps];
      },
    };
  });
  return fn(x, ...params) as tf.Tensor;
}

/** LayerNorm (weight and bias) with its gradients computed natively too. */
export function nativeLayerNormTrainable(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  return rowNormTrainable('GenstudyLayerNormTrain', 'GenstudyLayerNormGrad', x, [w, b], eps);
}

/** RMSNorm with its gradients computed natively too. */
export function nativeRmsNormTrainable(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  return rowNormTrainable('GenstudyRmsNormTrain', 'GenstudyRmsNormGrad', x, [w], eps);
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
