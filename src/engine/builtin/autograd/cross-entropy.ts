// The training loss's op: summed token cross-entropy as one custom-gradient op (composed from tfjs on
// wasm, native kernels on the native path). The trainer (train/loss.ts) picks the rows and normalises.
import * as tf from '@tensorflow/tfjs-core';
import { fusedOpsAvailable } from '../native/fused-ops.ts';
import { nativeCrossEntropyGrad, nativeLogSoftmaxAt } from '../native/training-ops.ts';

/**
 * sum_i (logsumexp(logits_i) - logits_i[target_i]) with the textbook gradient
 * (softmax(logits) - onehot(target)) dy. Written as one custom-gradient op because the composed
 * version keeps about twenty [rows x vocab] intermediates on the tape for the backward pass (max,
 * its equality mask, exp, the one-hot product, casts): most of a small model's training memory.
 */
export function crossEntropySum(logits: tf.Tensor2D, targets: readonly number[]): tf.Scalar {
  // Its kernels run where no tape records: in the custom gradient's forward and backward functions.
  if (fusedOpsAvailable()) return nativeCrossEntropySum(logits, targets);
  const [rows, vocab] = logits.shape;
  const flatIndex = tf.tensor1d(targets.map((t, i) => i * vocab + t), 'int32');
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const lse = tf.logSumExp(x, 1, true);
    const gold = tf.gather(tf.reshape(x, [rows * vocab]), flatIndex);
    save([x, lse]);
    return {
      value: tf.sum(tf.sub(tf.reshape(lse, [rows]), gold)),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xs, l] = saved;
        // The targets as a tensor made here: tensors of the forward scope are gone by now.
        return tf.mul(tf.sub(tf.exp(tf.sub(xs, l)), tf.oneHot(tf.tensor1d([...targets], 'int32'), vocab)), dy);
      },
    };
  });
  return fn(logits) as tf.Scalar;
}

/**
 * The same on the native path: the forward pass keeps each row's log-softmax (one [rows x vocab]
 * tensor, as the composed version keeps the logits) and the backward pass is dy (exp(logp) - onehot).
 */
function nativeCrossEntropySum(logits: tf.Tensor2D, targets: readonly number[]): tf.Scalar {
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const { logp, gold } = nativeLogSoftmaxAt(x, tf.tensor1d([...targets], 'int32'));
    save([logp]);
    return {
      value: tf.neg(tf.sum(gold)),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => nativeCrossEntropyGrad(saved[0] as tf.Tensor2D, targets, dy),
    };
  });
  return fn(logits) as tf.Scalar;
}
