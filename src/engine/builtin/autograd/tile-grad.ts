// Tile's gradient for tensors of any rank: tfjs's stops at rank 4, and grouped-query attention's
// repeat_kv tiles rank-5 tensors (blocks.ts). Registered by enable.ts.
import * as tf from '@tensorflow/tfjs-core';

/**
 * Gradient of tile for any rank (tfjs's stops at rank 4; grouped-query attention tiles rank-5
 * tensors): for each tiled axis, view dy as [before, reps, size, after] and sum over reps.
 */
export const tileGrad: tf.GradConfig = {
  kernelName: tf.Tile,
  inputsToSave: ['x'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: tf.NamedAttrMap) => {
    const [x] = saved;
    const { reps } = attrs as unknown as { reps: number[] };
    return {
      x: () => {
        let g = dy as tf.Tensor;
        const shape = [...g.shape];
        for (let i = 0; i < reps.length; i++) {
          if (reps[i] === 1) continue;
          const before = shape.slice(0, i).reduce((a, b) => a * b, 1);
          const after = shape.slice(i + 1).reduce((a, b) => a * b, 1);
          g = tf.sum(tf.reshape(g, [before, reps[i], x.shape[i], after]), 1);
          shape[i] = x.shape[i];
          g = tf.reshape(g, shape);
        }
        return g;
      },
    };
  },
};
