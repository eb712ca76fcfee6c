// The training loss of a micro-batch: summed token cross-entropy at the loss positions, divided by
// `normalizer` (the number of target tokens in the whole optimiser step, so that gradient
// accumulation equals one large batch, as transformers >= 4.46 normalises). Logits are computed
// only at the loss positions: the lm head over the full vocabulary is the largest matMul of a
// small model, and only these rows are needed.
import * as tf from '@tensorflow/tfjs-core';
import { pad } from '../engine/builtin/batching.ts';
import type { BuiltinModel } from '../engine/builtin/model.ts';
import type { TrainSequence } from './sequences.ts';

/** Scalar loss tensor; call inside tf.variableGrads / tf.tidy. */
export function microBatchLoss(model: BuiltinModel, seqs: readonly TrainSequence[], normalizer: number): tf.Scalar {
  const { ids, keyMask, width } = pad(seqs.map((s) => s.ids), 'right', 0);
  const rows: number[] = [];
  const targets: number[] = [];
  seqs.forEach((s, i) => {
    for (let j = 0; j < s.lossPositions.length; j++) {
      rows.push(i * width + s.lossPositions[j]);
      targets.push(s.targets[j]);
    }
  });
  const { hidden } = model.step(ids, keyMask, 0);
  const flat = tf.reshape(hidden, [-1, hidden.shape[2]]);
  const picked = tf.gather(flat, tf.tensor1d(rows, 'int32')) as tf.Tensor2D;
  const logits = model.logitsOf(picked);
  const vocab = logits.shape[1];
  const gold = tf.sum(tf.mul(logits, tf.oneHot(tf.tensor1d(targets, 'int32'), vocab)), 1);
  const nll = tf.sub(tf.logSumExp(logits, 1), gold);
  return tf.div(tf.sum(nll), normalizer) as tf.Scalar;
}

/** Non-padding input tokens of a micro-batch (what tokens per second counts). */
export function inputTokens(seqs: readonly TrainSequence[]): number {
  return seqs.reduce((n, s) => n + s.ids.length, 0);
}
